/* The ELF dynamic-symbol reader behind `nm -D ... | grep " T sym"`:
 * images are built in memory (both classes, both byte orders, with and
 * without section headers, DT_HASH or DT_GNU_HASH), then truncated and
 * corrupted byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/check/check_impl.h"
#include "tests/unit/testutil.h"

struct img {
	unsigned char b[4096];
	size_t len;
	bool is64, big;
};

static void put(struct img *m, size_t off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++) {
		unsigned shift = 8 * (m->big ? size - 1 - i : i);
		m->b[off + i] = (unsigned char)(v >> shift);
	}
	if (off + size > m->len)
		m->len = off + size;
}

static void word(struct img *m, size_t off, uint64_t v)
{
	put(m, off, v, m->is64 ? 8 : 4);
}

static size_t align(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static const char *const names[] = {"", "cutile_softmax", "weak_fn", "data_obj", "undef_fn",
				    "local_fn"};
#define NSYMS 6

enum { S_NULL, S_TEXT, S_DATA, S_DYNSYM, S_DYNSTR, S_DYNAMIC, S_HASH, S_SHSTR, NSECT };

struct layout {
	size_t text, data, dynstr, dynstr_len, dynsym, hash, hash_len, dynamic, shstr, shoff;
	size_t name_off[NSYMS];
};

/* A minimal shared object: one PT_LOAD mapping the file at vaddr 0 and a
 * PT_DYNAMIC; sections .text .data .dynsym .dynstr .dynamic .hash. */
static void build(struct img *m, bool is64, bool big, bool gnu_hash, struct layout *L)
{
	memset(m, 0, sizeof(*m));
	m->is64 = is64;
	m->big = big;
	size_t ehsz = is64 ? 64 : 52, phsz = is64 ? 56 : 32, shsz = is64 ? 64 : 40;
	size_t symsz = is64 ? 24 : 16, dynsz = is64 ? 16 : 8;
	size_t off = ehsz + 2 * phsz;
	L->text = off;
	off += 16;
	L->data = off;
	off += 16;
	L->dynstr = off;
	size_t p = off;
	for (size_t i = 0; i < NSYMS; i++) {
		L->name_off[i] = p - off;
		memcpy(m->b + p, names[i], strlen(names[i]) + 1);
		p += strlen(names[i]) + 1;
	}
	L->dynstr_len = p - off;
	off = align(p, 8);
	L->dynsym = off;
	static const struct {
		unsigned bind, type, sect;
	} syms[NSYMS] = {
		{STB_LOCAL, STT_NOTYPE, 0},	   {STB_GLOBAL, STT_FUNC, S_TEXT},
		{STB_WEAK, STT_FUNC, S_TEXT},	   {STB_GLOBAL, STT_OBJECT, S_DATA},
		{STB_GLOBAL, STT_FUNC, SHN_UNDEF}, {STB_LOCAL, STT_FUNC, S_TEXT},
	};
	for (size_t i = 0; i < NSYMS; i++) {
		size_t s = off + i * symsz;
		put(m, s, i ? L->name_off[i] : 0, 4);
		unsigned info = (syms[i].bind << 4) | syms[i].type;
		if (is64) {
			put(m, s + 4, info, 1);
			put(m, s + 6, syms[i].sect, 2);
			put(m, s + 8, syms[i].sect == S_TEXT ? L->text : 0, 8);
		} else {
			put(m, s + 4, syms[i].sect == S_TEXT ? L->text : 0, 4);
			put(m, s + 12, info, 1);
			put(m, s + 14, syms[i].sect, 2);
		}
	}
	off += NSYMS * symsz;
	L->hash = off;
	if (!gnu_hash) {
		put(m, off, 1, 4);      /* nbucket */
		put(m, off + 4, NSYMS, 4); /* nchain = symbol count */
		L->hash_len = 4 * (2 + 1 + NSYMS);
	} else {
		put(m, off, 1, 4);     /* nbuckets */
		put(m, off + 4, 1, 4); /* symoffset */
		put(m, off + 8, 1, 4); /* bloom words */
		put(m, off + 12, 0, 4);
		size_t bw = is64 ? 8 : 4;
		put(m, off + 16 + bw, 1, 4); /* bucket[0] -> symbol 1 */
		size_t chain = off + 16 + bw + 4;
		for (size_t i = 1; i < NSYMS; i++)
			put(m, chain + 4 * (i - 1), 2 * i + (i == NSYMS - 1), 4);
		L->hash_len = 16 + bw + 4 + 4 * (NSYMS - 1);
	}
	off = align(off + L->hash_len, 8);
	L->dynamic = off;
	uint64_t dyn[][2] = {{DT_SYMTAB, L->dynsym},
			     {DT_STRTAB, L->dynstr},
			     {DT_STRSZ, L->dynstr_len},
			     {DT_SYMENT, symsz},
			     {gnu_hash ? DT_GNU_HASH : DT_HASH, L->hash},
			     {DT_NULL, 0}};
	for (size_t i = 0; i < TP_ARRAY_LEN(dyn); i++) {
		word(m, off + i * dynsz, dyn[i][0]);
		word(m, off + i * dynsz + dynsz / 2, dyn[i][1]);
	}
	off += TP_ARRAY_LEN(dyn) * dynsz;
	L->shstr = off;
	off += 1;
	L->shoff = align(off, 8);
	size_t filesz = L->shoff + NSECT * shsz;

	memcpy(m->b, ELFMAG, SELFMAG);
	m->b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	m->b[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	m->b[EI_VERSION] = EV_CURRENT;
	put(m, 16, ET_DYN, 2);
	if (is64) {
		put(m, 32, ehsz, 8);
		put(m, 40, L->shoff, 8);
		put(m, 52, ehsz, 2);
		put(m, 54, phsz, 2);
		put(m, 56, 2, 2);
		put(m, 58, shsz, 2);
		put(m, 60, NSECT, 2);
		put(m, 62, S_SHSTR, 2);
	} else {
		put(m, 28, ehsz, 4);
		put(m, 32, L->shoff, 4);
		put(m, 40, ehsz, 2);
		put(m, 42, phsz, 2);
		put(m, 44, 2, 2);
		put(m, 46, shsz, 2);
		put(m, 48, NSECT, 2);
		put(m, 50, S_SHSTR, 2);
	}
	/* PT_LOAD (whole file at vaddr 0), PT_DYNAMIC */
	for (int i = 0; i < 2; i++) {
		size_t ph = ehsz + (size_t)i * phsz;
		uint64_t o = i ? L->dynamic : 0, sz = i ? TP_ARRAY_LEN(dyn) * dynsz : filesz;
		put(m, ph, i ? PT_DYNAMIC : PT_LOAD, 4);
		if (is64) {
			put(m, ph + 8, o, 8);
			put(m, ph + 16, o, 8);
			put(m, ph + 32, sz, 8);
			put(m, ph + 40, sz, 8);
		} else {
			put(m, ph + 4, o, 4);
			put(m, ph + 8, o, 4);
			put(m, ph + 16, sz, 4);
			put(m, ph + 20, sz, 4);
		}
	}
	struct {
		uint32_t type;
		uint64_t flags, off, size, link, entsize;
	} sh[NSECT] = {
		{SHT_NULL, 0, 0, 0, 0, 0},
		{SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, L->text, 16, 0, 0},
		{SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, L->data, 16, 0, 0},
		{SHT_DYNSYM, SHF_ALLOC, L->dynsym, NSYMS * symsz, S_DYNSTR, symsz},
		{SHT_STRTAB, SHF_ALLOC, L->dynstr, L->dynstr_len, 0, 0},
		{SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, L->dynamic, TP_ARRAY_LEN(dyn) * dynsz, S_DYNSTR, dynsz},
		{gnu_hash ? SHT_GNU_HASH : SHT_HASH, SHF_ALLOC, L->hash, L->hash_len, S_DYNSYM, 4},
		{SHT_STRTAB, 0, L->shstr, 1, 0, 0},
	};
	for (size_t i = 0; i < NSECT; i++) {
		size_t s = L->shoff + i * shsz;
		put(m, s + 4, sh[i].type, 4);
		if (is64) {
			put(m, s + 8, sh[i].flags, 8);
			put(m, s + 16, sh[i].off, 8);
			put(m, s + 24, sh[i].off, 8);
			put(m, s + 32, sh[i].size, 8);
			put(m, s + 40, sh[i].link, 4);
			put(m, s + 56, sh[i].entsize, 8);
		} else {
			put(m, s + 8, sh[i].flags, 4);
			put(m, s + 12, sh[i].off, 4);
			put(m, s + 16, sh[i].off, 4);
			put(m, s + 20, sh[i].size, 4);
			put(m, s + 24, sh[i].link, 4);
			put(m, s + 36, sh[i].entsize, 4);
		}
	}
	m->len = filesz;
}

static char lookup(const struct img *m, const char *name)
{
	char type = 0;
	struct tp_err err = {0};
	int rc = elf_dynsym_lookup(m->b, m->len, name, &type, &err);
	if (rc < 0)
		return '!';
	return rc ? type : '-';
}

static void expect_letters(const struct img *m, bool sections)
{
	assert_int_equal(lookup(m, "cutile_softmax"), 'T');
	assert_int_equal(lookup(m, "weak_fn"), 'W');
	assert_int_equal(lookup(m, "data_obj"), 'D');
	assert_int_equal(lookup(m, "undef_fn"), 'U');
	assert_int_equal(lookup(m, "local_fn"), 't');
	assert_int_equal(lookup(m, "cutile"), '-');           /* a prefix is not the name */
	assert_int_equal(lookup(m, "cutile_softmax_v2"), '-'); /* nor a longer one */
	(void)sections;
}

static void test_variants(void **state)
{
	(void)state;
	struct img m;
	struct layout L;
	for (int is64 = 0; is64 < 2; is64++)
		for (int big = 0; big < 2; big++)
			for (int gnu = 0; gnu < 2; gnu++) {
				build(&m, is64, big, gnu, &L);
				expect_letters(&m, true);
				/* strip the section headers: the dynamic segment is enough */
				if (is64)
					put(&m, 40, 0, 8);
				else
					put(&m, 32, 0, 4);
				expect_letters(&m, false);
			}
}

static void test_not_elf(void **state)
{
	(void)state;
	char type;
	struct tp_err err = {0};
	const unsigned char junk[] = "#!/bin/sh\necho not a library\n";
	assert_int_equal(elf_dynsym_lookup(junk, sizeof(junk), "x", &type, &err), -1);
	assert_string_equal(err.msg, "not an ELF file");
	assert_int_equal(elf_dynsym_lookup(junk, 0, "x", &type, &err), -1);
	assert_int_equal(elf_dynsym_lookup_file("/nonexistent.so", "x", &type, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent.so"));
}

/* Every truncation and every single-byte corruption of every variant: the
 * reader answers (found, absent or error) and never reads out of bounds
 * (AddressSanitizer watches the heap copies). */
/* A cut or damaged image is read within its bytes (ASan would catch a read
 * past them) and answered honestly: a failure says why, a prefix shorter
 * than the ELF header is no ELF file, the whole image finds the symbol, and
 * whatever is found carries an nm letter. */
static void check_answer(int r, char type, const struct tp_err *err)
{
	assert_true(r >= -1 && r <= 1);
	if (r < 0)
		assert_true(err->msg[0] != '\0');
	if (r == 1)
		assert_true((type >= 'A' && type <= 'Z') || (type >= 'a' && type <= 'z') || type == '?');
}

static void test_truncated_and_corrupted(void **state)
{
	(void)state;
	struct img m;
	struct layout L;
	for (int v = 0; v < 8; v++) {
		build(&m, v & 1, v & 2, v & 4, &L);
		size_t ehsz = (v & 1) ? 64 : 52;
		for (size_t n = 0; n <= m.len; n++) {
			unsigned char *copy = malloc(n ? n : 1);
			memcpy(copy, m.b, n);
			char type = 0;
			struct tp_err err = {0};
			int r = elf_dynsym_lookup(copy, n, "cutile_softmax", &type, &err);
			check_answer(r, type, &err);
			if (n < ehsz)
				assert_int_equal(r, -1);
			if (n == m.len) {
				assert_int_equal(r, 1);
				assert_int_equal(type, 'T');
			}
			free(copy);
		}
		unsigned char *copy = malloc(m.len);
		for (size_t i = 0; i < m.len; i++) {
			memcpy(copy, m.b, m.len);
			copy[i] ^= 0xff;
			char type = 0;
			struct tp_err err = {0};
			int r = elf_dynsym_lookup(copy, m.len, "cutile_softmax", &type, &err);
			check_answer(r, type, &err);
			copy[i] = 0x80;
			type = 0;
			tp_err_clear(&err);
			r = elf_dynsym_lookup(copy, m.len, "data_obj", &type, &err);
			check_answer(r, type, &err);
		}
		free(copy);
	}
}

static void test_file(void **state)
{
	(void)state;
	struct img m;
	struct layout L;
	build(&m, true, false, false, &L);
	char *dir = tu_tmpdir();
	char *path = path_join(dir, "libcutile_kernels.so");
	assert_int_equal(write_file(path, m.b, m.len, NULL), 0);
	char type = 0;
	struct tp_err err = {0};
	assert_int_equal(elf_dynsym_lookup_file(path, "cutile_softmax", &type, &err), 1);
	assert_int_equal(type, 'T');
	assert_int_equal(elf_dynsym_lookup_file(path, "nope", &type, &err), 0);
	assert_int_equal(write_file(path, "", 0, NULL), 0);
	assert_int_equal(elf_dynsym_lookup_file(path, "cutile_softmax", &type, &err), -1);
	assert_non_null(strstr(err.msg, "libcutile_kernels.so"));
	/* a FIFO in place of the library is refused at once, not waited on */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(elf_dynsym_lookup_file(path, "cutile_softmax", &type, &err), -1);
	assert_non_null(strstr(err.msg, "libcutile_kernels.so: is a FIFO"));
	assert_int_equal(err.code, TP_EXIT_FAILED);
	remove_tree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated_and_corrupted),
		cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
