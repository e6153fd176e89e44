/* Internals of the transcript view shared by views/transcript.c (the
 * record index, loading, folding, search, ops) and
 * views/transcript_render.c (what one record shows). Not a public header. */
#ifndef TILEPORT_VIEWS_TRANSCRIPT_INT_H
#define TILEPORT_VIEWS_TRANSCRIPT_INT_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "views/view.h"

#define BLOCK (1u << 20)
#define INDEX_BLOCK (256u << 10) /* ~3000 records: about 2 ms of indexing */
#define LEN_MAX ((1u << 24) - 1)

enum rtype { R_RAW, R_START, R_TEXT, R_CALL, R_RESULT, R_USAGE, R_ERROR, R_FINAL, R_RETRY, R_HANDOVER, R_OTHER };
enum rflag { RF_MEM = 1, RF_OPEN = 2, RF_ATTACHED = 4, RF_FAILED = 8 };

struct rec {
	uint64_t loc;   /* offset << 24 | length */
	uint32_t first; /* first display line */
	uint32_t meta;  /* lines << 8 | flags << 4 | type */
};

#define REC_OFF(r) ((r)->loc >> 24)
#define REC_LEN(r) ((uint32_t)((r)->loc & LEN_MAX))
#define REC_TYPE(r) ((enum rtype)((r)->meta & 0xf))
#define REC_FLAGS(r) (((r)->meta >> 4) & 0xf)
#define REC_LINES(r) ((r)->meta >> 8)

struct pending {
	uint64_t hash;
	uint32_t rec;
};

/* One record drawn: its lines as typed slices of one buffer. */
struct rendered {
	size_t rec;
	bool valid;
	struct sbuf text;
	struct { uint32_t off, len; uint8_t type; } *l;
	size_t n, cap;
};

struct tx {
	char *path;
	struct run_model *run; /* the live run streaming attempt `seq`, or NULL */
	int seq;
	int fd;
	uint64_t scanned, limit; /* bytes indexed; where to stop */
	char *block;          /* file bytes [block_off, block_off + block_len) */
	char *ibuf;           /* INDEX_BLOCK bytes for indexing */
	uint64_t block_off;
	size_t block_len;
	struct sbuf mem;      /* streamed lines */
	size_t mem_indexed;   /* bytes of mem turned into records */
	struct rec *recs;
	size_t nrecs, caprecs;
	uint32_t total;       /* display lines */
	struct pending pend[64];
	size_t npend;
	uint32_t *res_key, *res_val; /* call record -> result record (open hash) */
	size_t res_cap, res_n;
	struct rendered r;
	char *placeholder;
	size_t orphans;       /* tool results with an id whose call was not found */
	/* G before the file is indexed: its last records, indexed on their own
	 * and shown after the head's lines and a gap line (transcript_end.c) */
	struct tx *tail;
	uint64_t resume_limit; /* the head's limit once the tail is merged */
};

/* transcript.c */
/* A record's bytes (from the streamed buffer, or the file through a block
 * cache); *len may come back shorter if the file shrank. */
const char *tx_raw(struct tx *t, const struct rec *r, size_t *len);
/* The result record attached to a tool call record, or UINT32_MAX. */
uint32_t tx_result_of(const struct tx *t, uint32_t call);
/* Index the file from t->scanned to t->limit for up to budget_ms; at_eof
 * also takes a last line without a newline. True while more remains. */
bool tx_index_file(struct tx *t, int64_t budget_ms, bool at_eof);
/* Open or fold record ri. */
void tx_toggle(struct tx *t, size_t ri);
/* Free the record index, its reading buffers and the rendered record. */
void tx_free_index(struct tx *t);

/* transcript_end.c: G before the file is indexed, and the display over
 * the head, the gap line and the tail. */
/* Index the file's end on its own (G while loading a big file). */
void tx_tail_start(struct view *v, struct tx *t);
void tx_tail_free(struct tx *tail);
/* After the head indexed a slice (it had `head` lines before): keep what
 * is below the gap in place; once the head is done, merge. Returns
 * whether loading goes on. */
bool tx_tail_pumped(struct view *v, struct tx *t, size_t head, bool more);
size_t tx_shown_lines(const struct tx *t);
/* The part (head or tail) showing display line `line`, and the line in
 * it; NULL for the gap line. */
struct tx *tx_part_of(struct tx *t, size_t line, size_t *local);
/* The record of a part that shows its line `line`. */
size_t tx_rec_of_line(const struct tx *t, size_t line);
/* Records in display order over both parts: vr < t->nrecs is the head's. */
size_t tx_vrec_count(const struct tx *t);
struct tx *tx_vrec(struct tx *t, size_t vr, size_t *ri, size_t *base);
/* The record showing display line `line`; SIZE_MAX on the gap. */
size_t tx_vrec_of_line(struct tx *t, size_t line);
/* Display line of a record's first line. */
size_t tx_vrec_line(struct tx *t, size_t vr);

/* transcript_render.c */
extern const char *const tx_text_names[];
const char *tx_str_field(const cJSON *o, const char *const *names);
enum rtype tx_type_of(const cJSON *o);
/* Parse record idx (NULL for raw lines and bad JSON). */
cJSON *tx_parse(struct tx *t, size_t idx);
/* Display lines record idx takes now (folded or open). */
uint32_t tx_count(struct tx *t, size_t idx, const cJSON *o);
/* Record idx as typed lines; the last one is cached. */
const struct rendered *tx_render(struct tx *t, size_t idx);

#endif
