/* Internal to engine/check and its unit tests: the per-run recorder, text
 * and file helpers, the Rust and Python scanners and the ELF symbol reader.
 * Other modules use engine/check/check.h only. */
#ifndef TILEPORT_CHECK_IMPL_H
#define TILEPORT_CHECK_IMPL_H

#include "engine/check/check.h"
#include "engine/base/pytok.h"

struct cJSON;

/* ---- recording one validator run (report.c) ---- */

/* A file as the checks see it: data is NULL when it is missing or
 * unreadable, otherwise NUL-terminated. */
struct ck_file {
	char *path;
	char *data;
	size_t len;
	bool exists; /* a regular file, possibly empty */
};

struct ck_arena_item {
	void *p;
	void (*release)(void *);
};

struct ck {
	const struct check_ctx *ctx;
	struct check_report *r;
	size_t run;   /* index of the run being recorded */
	char *out;    /* run directory (arena), NULL when unknown */
	char *kernel; /* kernel name (arena), NULL when unknown */
	struct ck_arena_item *arena;
	size_t narena, arena_cap;
	struct ck_file **files; /* cache: each file read once per run */
	size_t nfiles, files_cap;
	struct sbuf notes;
	bool analysis_loaded; /* ck_analysis cache */
	struct cJSON *analysis;
	const char *analysis_why;
};

/* Start a run named `name` with its positional arguments. */
void ck_begin(struct ck *k, const struct check_ctx *ctx, struct check_report *r,
	      const char *name, const char *args);
/* Finish: store notes and closing lines, compute verdict and exit code,
 * release the arena. Returns the exit code. */
int ck_end(struct ck *k, const char *closing);
/* Findings of `sev` recorded so far in this run. */
size_t ck_count(const struct ck *k, enum check_sev sev);
/* Record a finding. A FAIL or WARN about a step the context defers is
 * recorded as DEFERRED. */
void ck_add(struct ck *k, enum check_sev sev, unsigned step, const char *rule,
	    const char *file, int line, const char *fmt, ...) TP_PRINTF(7, 8);
void ck_note(struct ck *k, const char *fmt, ...) TP_PRINTF(2, 3);
/* Memory that lives until ck_end. */
void *ck_keep(struct ck *k, void *p, void (*release)(void *));
char *ck_fmt(struct ck *k, const char *fmt, ...) TP_PRINTF(2, 3);
/* OUT/rel (NULL when the run directory is unknown). */
const char *ck_out(struct ck *k, const char *rel);
/* $TILEGYM_PATH/rel (NULL when TILEGYM_PATH is unset). */
const char *ck_tg(struct ck *k, const char *rel);
/* KERNELS_DIR = CUTILE_RS_KERNELS_DIR, else the in-tree cutile_kernels crate. */
const char *ck_kernels_dir(struct ck *k);
/* Load (cached) a file; never NULL. */
const struct ck_file *ck_load(struct ck *k, const char *path);
bool ck_nonempty(const struct ck_file *f);
/* analysis.json parsed (cached); NULL when missing or invalid, with the
 * reason in *why (arena) when why is not NULL. */
struct cJSON *ck_analysis(struct ck *k, const char **why);
/* Number of kernel_variants entries in analysis.json (0 when unknown). */
size_t ck_variant_count(struct ck *k);
/* Nested validators: agent-b runs entry-pattern, agent-e and kernel run
 * perf-log. Their findings go into the current run under `rule` (NULL:
 * their own rule ids); the return value is their verdict. A missing log
 * is reported with `missing_sev` (FAIL, or WARN for optional logs). */
enum check_sev ck_nested_entry_pattern(struct ck *k, const char *rule);
enum check_sev ck_nested_perf_log(struct ck *k, const char *path, const char *label,
				  const char *rule, enum check_sev missing_sev);
/* Heaviest severity among findings added since index `from`. */
enum check_sev ck_verdict_since(const struct ck *k, size_t from);

/* ---- text helpers (text.c) ---- */

bool tx_icontains(const char *hay, const char *needle);
/* POSIX ERE over the text with grep's line semantics (REG_NEWLINE).
 * Returns true on a match and its 1-based line in *line (may be NULL).
 * A pattern that does not compile aborts: patterns are compile-time
 * constants or built from escaped names. */
bool tx_grep(const char *text, const char *ere, int cflags, int *line);
/* Number of lines matching. */
size_t tx_grep_count(const char *text, const char *ere, int cflags);
/* ERE over the whole text, newlines included in bracket expressions. */
bool tx_search(const char *text, const char *ere, int cflags, int *line);
/* Number of lines containing `needle` (grep -c -F). */
size_t tx_count_lines_with(const char *text, const char *needle);
/* 1-based line of byte offset `off`. */
int tx_line_at(const char *text, size_t off);
/* Line count, counting a final line without a newline. */
size_t tx_lines(const char *text, size_t len);
/* First line without its newline or CR; caller frees. */
char *tx_first_line(const char *text);
/* Escape ERE metacharacters in `s`; caller frees. */
char *tx_ere_escape(const char *s);
/* Sorted names in `dir` that start with `prefix` and end with `suffix`
 * (regular files only); strv_free. Never NULL. */
char **tx_list_dir(const char *dir, const char *prefix, const char *suffix, size_t *n);
/* Last path component (pointer into s). */
const char *tx_basename(const char *s);

/* ---- shared pieces of several validators (workspace.c) ---- */

/* A structural reference IR: OUT/reference/reference.mlir or a top-level
 * reference_<variant>.mlir that is not a supplement. */
struct ck_ir {
	const char *path;    /* arena */
	const char *variant; /* "" for reference.mlir */
};
/* The structural set as validate_entry_pattern.sh decides it. */
size_t ck_structural_irs(struct ck *k, struct ck_ir **out);
/* ffi.rs, whose presence in OUT the output contract requires: PASS or FAIL
 * under `rule`. Returns the copy whose contents the caller checks: OUT/ffi.rs,
 * else the in-tree ops/cutile_rs/{k}_kernel/ffi.rs D writes (so one repair
 * round sees every problem); NULL when neither has any content.
 * `copy_rule` warns when both exist and differ. */
const char *ck_ffi(struct ck *k, const char *rule, const char *copy_rule);
/* libcutile_kernels.so under KERNELS_DIR/target/release, then under
 * ops/cutile_rs; NULL when not found. */
const char *ck_find_cdylib(struct ck *k);
/* Whether D's host files are expected (check_ctx.host_written). */
bool ck_host_written(struct ck *k);
/* The run was started with --again: the workspace had the op's cuTile Rust
 * port before it (state.json's port_before), so its files are no stage's. */
bool ck_port_before(struct ck *k);
/* The wrapper module for the kernel: ops/cutile_rs/{k}.py, {k w/o _}.py,
 * or a *.py with `register_impl.*{k}` (validate_agent_d.sh's lookup). */
const char *ck_wrapper_by_kernel(struct ck *k);
/* The operator's test relative to the workspace: tests/ops/[SUB/]test_{k}.py
 * where engine/base/operator.h finds it (an operator in a subfolder has its
 * test in the same one), else tests/ops/test_{k}.py. */
const char *ck_test_rel(struct ck *k);

/* ffi.rs ABI checks shared by agent-d and kernel (rules PREFIX.ffi-*),
 * on comment-blanked code. */
void ck_ffi_abi(struct ck *k, const char *prefix, const char *file, const char *code);
/* libcutile_kernels.so exports `T sym` (nm -D), read from the ELF file. */
void ck_symbol(struct ck *k, const char *rule, const char *sym);

/* validate_kernel.sh checks 18-19 (v_wrapper.c). */
void ck_kernel_wrapper(struct ck *k, const char *ffi_fn);

/* ---- Rust source scanning (rsscan.c) ---- */

/* Copy of `src` with comments (and, when `strings`, string and char
 * literal contents) blanked to spaces; newlines kept so lines and offsets
 * match the original. */
char *rs_blank(const char *src, size_t len, bool strings);
struct rs_entry {
	char *name;
	int line;
	bool tensor; /* a `&Tensor<` parameter */
	bool ptr;    /* a raw pointer parameter (`*mut` / `*const`) to anything but a
			primitive type: the element arrays (`*mut E`) */
	bool prim_ptr; /* a raw pointer to a primitive type (`*mut f32`): a side output */
};
/* Every `#[cutile::entry...]` function of a Rust source. */
size_t rs_entries(const char *src, size_t len, struct rs_entry **out);
void rs_entries_free(struct rs_entry *v, size_t n);
/* NAME of the first `pub [unsafe] extern "C" fn NAME(`; caller frees;
 * NULL when none. */
char *rs_extern_c_fn(const char *src, size_t len, int *line);

/* ---- Python wrapper scanning (pyscan.c over engine/base/pytok.h) ---- */

struct py_live {
	int call_line, call_col; /* first live invocation, 0 = none */
	const char *call_form;   /* "attribute call", "getattr call", ... */
	int early_line;          /* return/raise before it in the same function */
	const char *early_kw;
	int dead_line;           /* an invocation found only in dead code */
};
/* Look for a live invocation of `symbol` (validate_kernel.sh check 18):
 * `x.SYM(...)`, `getattr(x, "SYM")(...)`, a binder called with the literal,
 * or an alias or factory of one of those, in code that can run (not in a
 * comment or string, not under `if False:`, not after an unconditional
 * return/raise, not in a function nothing refers to). Returns 0, or -1
 * (err set) when the source does not tokenize. */
int py_live_call(const char *src, size_t len, const char *symbol, struct py_live *res,
		 struct tp_err *err);

/* ---- ELF dynamic symbols (elfsym.c) ---- */

/* Look up `name` in the dynamic symbol table of an ELF image. Returns 1
 * and the `nm -D` type letter in *type ('T' global text, 'W' weak, 'U'
 * undefined, ...), 0 when absent, -1 (err set) when the image is not a
 * readable ELF file. Never reads outside buf[0..len). */
int elf_dynsym_lookup(const unsigned char *buf, size_t len, const char *name, char *type,
		      struct tp_err *err);
int elf_dynsym_lookup_file(const char *path, const char *name, char *type,
			   struct tp_err *err);

/* ---- the layout gate (layout.c) ---- */

/* Compare the strides/dim_map/tile attribute multisets of two IR texts
 * (B's semantic-layout gate). Returns true when equal; otherwise *diff
 * (caller frees) lists up to a few differing entries. */
bool layout_attrs_equal(const char *ref, const char *gen, char **diff, size_t *nref,
			size_t *ngen);

#endif
