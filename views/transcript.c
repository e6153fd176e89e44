/* The transcript view: an attempt's transcript.jsonl (docs/architecture.md,
 * "Agent transcripts") as readable lines, tool calls folded to one line with
 * their result behind them (o expands one, z all). Built to stay fast on a
 * million records: a record is 16 bytes of index (file offset or streamed-
 * buffer offset, type, flags, its display line count and first display
 * line); text is parsed again only for the records on screen; the file is
 * indexed in slices between frames, and G while it is indexed indexes the
 * end first (transcript_end.c); search scans raw bytes first. Lines a live
 * stage prints arrive from the run model's stream and are kept in memory. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "engine/base/files.h"
#include "engine/core/session.h"
#include "views/view.h"

#include "views/transcript_int.h"

static uint64_t hash_str(const char *s)
{
	return tp_hash(s, strlen(s), 0);
}

static void res_put(struct tx *t, uint32_t call, uint32_t result);

uint32_t tx_result_of(const struct tx *t, uint32_t call)
{
	if (!t->res_cap)
		return UINT32_MAX;
	for (size_t i = (call * 2654435761u) & (t->res_cap - 1);; i = (i + 1) & (t->res_cap - 1)) {
		if (t->res_key[i] == UINT32_MAX)
			return UINT32_MAX;
		if (t->res_key[i] == call)
			return t->res_val[i];
	}
}

static void res_put(struct tx *t, uint32_t call, uint32_t result)
{
	if ((t->res_n + 1) * 2 > t->res_cap) {
		size_t oldcap = t->res_cap;
		uint32_t *ok = t->res_key, *ov = t->res_val;
		t->res_cap = oldcap ? oldcap * 2 : 64;
		t->res_key = xmalloc(t->res_cap * sizeof(uint32_t));
		t->res_val = xmalloc(t->res_cap * sizeof(uint32_t));
		memset(t->res_key, 0xff, t->res_cap * sizeof(uint32_t));
		t->res_n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (ok[i] != UINT32_MAX)
				res_put(t, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	size_t i = (call * 2654435761u) & (t->res_cap - 1);
	while (t->res_key[i] != UINT32_MAX && t->res_key[i] != call)
		i = (i + 1) & (t->res_cap - 1);
	if (t->res_key[i] == UINT32_MAX)
		t->res_n++;
	t->res_key[i] = call;
	t->res_val[i] = result;
}

/* ---- raw record bytes ---- */

const char *tx_raw(struct tx *t, const struct rec *r, size_t *len)
{
	*len = REC_LEN(r);
	if (REC_FLAGS(r) & RF_MEM)
		return t->mem.buf + REC_OFF(r);
	uint64_t off = REC_OFF(r);
	if (off < t->block_off || off + *len > t->block_off + t->block_len) {
		size_t want = *len > BLOCK ? *len : BLOCK;
		if (want > BLOCK)
			t->block = xrealloc(t->block, want);
		/* Walking backwards (search back), end the block at the record so
		 * the records before it come from the same read. */
		uint64_t start = off;
		if (off < t->block_off && off + *len <= t->block_off && off + *len > want)
			start = off + *len - want;
		else if (off < t->block_off && off + *len <= t->block_off)
			start = 0;
		ssize_t got = pread(t->fd, t->block, want, (off_t)start);
		t->block_off = start;
		t->block_len = got > 0 ? (size_t)got : 0;
		if (off + *len > t->block_off + t->block_len)
			*len = off < t->block_off + t->block_len ? (size_t)(t->block_off + t->block_len - off) : 0;
	}
	return t->block + (off - t->block_off);
}

/* ---- what a record shows ---- */

static void set_lines(struct rec *r, uint32_t n)
{
	r->meta = (n << 8) | (r->meta & 0xff);
}

static void set_flags(struct rec *r, unsigned flags)
{
	r->meta = (r->meta & ~0xf0u) | ((flags & 0xf) << 4);
}

/* Recount first display lines from record `from` on. */
static void renumber(struct tx *t, size_t from)
{
	uint32_t at = from ? t->recs[from - 1].first + REC_LINES(&t->recs[from - 1]) : 0;
	for (size_t i = from; i < t->nrecs; i++) {
		t->recs[i].first = at;
		at += REC_LINES(&t->recs[i]);
	}
	t->total = at;
}

/* A record's line count changed (fold, its result arrived). */
static void recount(struct tx *t, size_t idx)
{
	cJSON *o = tx_parse(t, idx);
	set_lines(&t->recs[idx], tx_count(t, idx, o));
	cJSON_Delete(o);
	renumber(t, idx);
	t->r.valid = false;
}

void tx_toggle(struct tx *t, size_t ri)
{
	struct rec *r = &t->recs[ri];
	set_flags(r, REC_FLAGS(r) ^ RF_OPEN);
	recount(t, ri);
}

static bool foldable(const struct rec *r)
{
	return REC_TYPE(r) == R_CALL || (REC_TYPE(r) == R_RESULT && !(REC_FLAGS(r) & RF_ATTACHED));
}

/* Index one line: p/len are its bytes (at file offset or mem offset off). */
static void add_record(struct tx *t, uint64_t off, const char *p, size_t len, bool mem)
{
	if (len > LEN_MAX)
		len = LEN_MAX;
	if (t->nrecs >= UINT32_MAX - 1)
		return;
	t->recs = xgrow(t->recs, &t->caprecs, t->nrecs + 1, sizeof(*t->recs));
	size_t idx = t->nrecs++;
	struct rec *r = &t->recs[idx];
	r->loc = off << 24 | len;
	r->meta = 0;
	set_flags(r, mem ? RF_MEM : 0);
	cJSON *o = NULL;
	size_t k = 0;
	while (k < len && (p[k] == ' ' || p[k] == '\t'))
		k++;
	if (k < len && p[k] == '{')
		o = cJSON_ParseWithLength(p, len);
	enum rtype type = o ? tx_type_of(o) : R_RAW;
	r->meta |= (uint32_t)type;
	unsigned flags = REC_FLAGS(r);
	if (type == R_CALL) {
		const char *id = tx_str_field(o, (const char *const[]){"id", NULL});
		if (id) {
			if (t->npend == TP_ARRAY_LEN(t->pend))
				memmove(t->pend, t->pend + 1, --t->npend * sizeof(*t->pend));
			t->pend[t->npend++] = (struct pending){hash_str(id), (uint32_t)idx};
		}
	} else if (type == R_RESULT) {
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "is_error");
		if (cJSON_IsTrue(err))
			flags |= RF_FAILED;
		const char *id = tx_str_field(o, (const char *const[]){"id", NULL});
		uint64_t h = id ? hash_str(id) : 0;
		for (size_t i = t->npend; id && i-- > 0;) {
			if (t->pend[i].hash != h)
				continue;
			uint32_t call = t->pend[i].rec;
			memmove(&t->pend[i], &t->pend[i + 1], (t->npend - i - 1) * sizeof(*t->pend));
			t->npend--;
			flags |= RF_ATTACHED;
			id = NULL; /* found: not an orphan */
			res_put(t, call, (uint32_t)idx);
			/* An open call grows by its result; a folded one shows a mark. */
			if (REC_FLAGS(&t->recs[call]) & RF_OPEN) {
				set_flags(r, flags);
				cJSON_Delete(o);
				set_lines(r, 0);
				recount(t, call);
				return;
			}
			if (t->r.valid && t->r.rec == call)
				t->r.valid = false;
			break;
		}
		t->orphans += id != NULL;
	}
	set_flags(r, flags);
	set_lines(r, type == R_RAW || o ? tx_count(t, idx, o) : 1);
	cJSON_Delete(o);
	r->first = t->total;
	t->total += REC_LINES(r);
}

/* Index complete lines of the file from t->scanned; at_eof also takes a
 * last line without a newline. */
bool tx_index_file(struct tx *t, int64_t budget_ms, bool at_eof)
{
	int64_t end = now_ms() + budget_ms;
	if (!t->ibuf)
		t->ibuf = xmalloc(INDEX_BLOCK);
	char *buf = t->ibuf;
	bool more = true;
	for (;;) {
		size_t want = INDEX_BLOCK;
		if (t->limit - t->scanned < want)
			want = (size_t)(t->limit - t->scanned);
		ssize_t got = want ? pread(t->fd, buf, want, (off_t)t->scanned) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			more = false;
			break;
		}
		size_t used = 0;
		while (used < (size_t)got) {
			const char *nl = memchr(buf + used, '\n', (size_t)got - used);
			if (!nl)
				break;
			size_t len = (size_t)(nl - (buf + used));
			if (len && buf[used + len - 1] == '\r')
				len--;
			if (len)
				add_record(t, t->scanned + used, buf + used, len, false);
			used = (size_t)(nl - buf) + 1;
		}
		if (used == 0 && (size_t)got == want && want == INDEX_BLOCK) {
			/* One line longer than a block: take it cut. */
			add_record(t, t->scanned, buf, (size_t)got, false);
			used = (size_t)got;
		}
		if (used == 0) {
			if (at_eof) {
				add_record(t, t->scanned, buf, (size_t)got, false);
				t->scanned += (uint64_t)got;
			}
			more = false;
			break;
		}
		t->scanned += used;
		if (now_ms() >= end)
			break;
	}
	return more;
}

/* Streamed lines that arrived while the file was still being read. */
static void index_pending(struct tx *t)
{
	while (t->mem_indexed < t->mem.len) {
		const char *p = t->mem.buf + t->mem_indexed;
		const char *nl = memchr(p, '\n', t->mem.len - t->mem_indexed);
		size_t n = nl ? (size_t)(nl - p) : t->mem.len - t->mem_indexed;
		add_record(t, t->mem_indexed, p, n, true);
		t->mem_indexed += n + 1;
	}
}

static bool tx_pump(struct view *v, int64_t budget_ms)
{
	struct tx *t = v->priv;
	size_t head = t->total;
	/* A watched file may be mid-line at its end: wait for the newline. */
	bool more = t->fd >= 0 && t->scanned < t->limit &&
		    tx_index_file(t, budget_ms, !t->run && !v->ticking && !t->tail);
	if (t->tail)
		more = tx_tail_pumped(v, t, head, more);
	if (!more)
		index_pending(t);
	view_set_lines(v, tx_shown_lines(t));
	return more;
}

/* ---- view ops ---- */

static void tx_line(struct view *v, size_t line, struct line_out *out)
{
	struct tx *t = v->priv;
	if (t->placeholder) {
		lo_reset(out, LINE_EMPTY);
		lo_adds(out, LINE_EMPTY, t->placeholder);
		return;
	}
	size_t idx;
	struct tx *part = tx_part_of(t, line, &idx);
	if (!part) {
		char gap[96];
		snprintf(gap, sizeof(gap), "\xe2\x8b\xaf reading the file: %llu KB to go \xe2\x8b\xaf",
			 (unsigned long long)((t->limit - t->scanned) >> 10));
		lo_reset(out, LINE_DIM);
		lo_adds(out, LINE_DIM, gap);
		return;
	}
	t = part;
	size_t ri = tx_rec_of_line(t, idx);
	const struct rendered *r = tx_render(t, ri);
	size_t sub = idx - t->recs[ri].first;
	if (sub >= r->n) {
		lo_reset(out, LINE_TX_RAW);
		return;
	}
	enum line_type type = (enum line_type)r->l[sub].type;
	lo_reset(out, type);
	lo_add(out, type, r->text.buf + r->l[sub].off, r->l[sub].len);
}

/* A line the stage prints, from the run's stream. */
static void on_change(struct run_model *m, const struct run_change *c, void *ud)
{
	(void)m;
	struct view *v = ud;
	struct tx *t = v->priv;
	if (c->kind != RUN_OUTPUT || c->is_stderr || c->attempt->seq != t->seq)
		return;
	size_t n = c->len;
	if (n && c->line[n - 1] == '\r')
		n--;
	if (!n)
		return;
	sb_add(&t->mem, c->line, n);
	sb_addc(&t->mem, '\n');
	/* Records stay in order: the file's first, then what streamed. */
	if (v->loading)
		return;
	index_pending(t);
	view_set_lines(v, tx_shown_lines(t));
}

static int tx_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct tx *t = v->priv;
	t->fd = -1;
	if (!arg->path && arg->name) {
		/* A placeholder: nothing to show yet, and it says why. */
		t->placeholder = xstrdup(arg->name);
		v->ref = xstrdup("");
		view_set_lines(v, 1);
		return 0;
	}
	if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "transcript view: no file given");
		return -1;
	}
	t->path = path_is_dir(arg->path) ? path_join(arg->path, "transcript.jsonl")
					 : xstrdup(arg->path);
	bool live = arg->run != NULL;
	t->fd = file_open_read(t->path, 0, err); /* a FIFO would block the screen */
	if (t->fd < 0 && !(live && errno == ENOENT))
		return -1;
	t->block = xmalloc(BLOCK);
	/* A live attempt's file is read up to where it is now; what the stage
	 * prints from here on arrives from the run's stream. */
	struct stat sb;
	t->limit = UINT64_MAX;
	if (live) {
		t->limit = t->fd >= 0 && fstat(t->fd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
		t->run = run_model_ref(arg->run);
		t->seq = arg->index;
		run_model_listen(t->run, on_change, v);
	}
	v->ref = xstrdup(arg->name ? arg->name : t->path);
	v->follow = live || arg->line < 0;
	/* Following a file nobody feeds us (another tileport writes it):
	 * watch it grow. */
	v->ticking = v->follow && !live;
	v->loading = tx_pump(v, 5);
	if (arg->line > 0)
		view_select(v, (size_t)arg->line - 1);
	else if (arg->line < 0 && v->nlines)
		view_select(v, v->nlines - 1);
	return 0;
}

static void fold_all(struct tx *t, bool open)
{
	for (size_t i = 0; i < t->nrecs; i++) {
		struct rec *r = &t->recs[i];
		if (!foldable(r) || !!(REC_FLAGS(r) & RF_OPEN) == open)
			continue;
		set_flags(r, REC_FLAGS(r) ^ RF_OPEN);
		cJSON *o = tx_parse(t, i);
		set_lines(r, tx_count(t, i, o));
		cJSON_Delete(o);
	}
	renumber(t, 0);
	t->r.valid = false;
}

static bool any_folded(const struct tx *t)
{
	for (size_t i = 0; t && i < t->nrecs; i++)
		if (foldable(&t->recs[i]) && !(REC_FLAGS(&t->recs[i]) & RF_OPEN))
			return true;
	return false;
}

static enum request tx_request(struct view *v, enum request req)
{
	struct tx *t = v->priv;
	if (t->placeholder)
		return req;
	if (req == REQ_MOVE_LAST_LINE && v->loading)
		tx_tail_start(v, t);
	size_t vr = tx_vrec_of_line(t, v->lineno);
	if (vr == SIZE_MAX)
		return req;
	size_t ri, base;
	struct tx *p = tx_vrec(t, vr, &ri, &base);
	switch (req) {
	case REQ_ENTER:
	case REQ_TOGGLE_FOLD:
		if (!foldable(&p->recs[ri]))
			return req == REQ_ENTER ? REQ_MOVE_DOWN : REQ_NONE;
		tx_toggle(p, ri);
		view_set_lines(v, tx_shown_lines(t));
		view_select(v, tx_vrec_line(t, vr));
		view_redraw(v);
		return REQ_NONE;
	case REQ_TOGGLE_FOLD_ALL: {
		/* Open everything if anything is folded, else fold everything. */
		bool open = any_folded(t) || any_folded(t->tail);
		fold_all(t, open);
		if (t->tail)
			fold_all(t->tail, open);
		view_set_lines(v, tx_shown_lines(t));
		view_select(v, tx_vrec_line(t, vr));
		view_redraw(v);
		return REQ_NONE;
	}
	case REQ_MOVE_NEXT_SECTION:
	case REQ_MOVE_PREV_SECTION: {
		bool next = req == REQ_MOVE_NEXT_SECTION;
		for (size_t i = vr; next ? i + 1 < tx_vrec_count(t) : i > 0;) {
			i = next ? i + 1 : i - 1;
			size_t k, b;
			const struct rec *r = &tx_vrec(t, i, &k, &b)->recs[k];
			enum rtype ty = REC_TYPE(r);
			if (REC_LINES(r) && (ty == R_CALL || ty == R_RESULT || ty == R_FINAL ||
					     ty == R_HANDOVER || ty == R_ERROR)) {
				view_select(v, tx_vrec_line(t, i));
				return REQ_NONE;
			}
		}
		return REQ_NONE;
	}
	case REQ_TOGGLE_FOLLOW:
		v->ticking = !v->follow && !t->run;
		return req;
	case REQ_REFRESH:
		return REQ_NONE;
	default:
		return req;
	}
}

/* Search raw record bytes first: only records whose JSON contains the text
 * are formatted and checked line by line. */
static ssize_t tx_find(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct tx *t = v->priv;
	size_t n = tx_vrec_count(t);
	if (!n)
		return -1;
	struct line_out lo;
	lo_init(&lo);
	size_t start = tx_vrec_of_line(t, from);
	if (start == SIZE_MAX) /* the gap: start from the record below it */
		start = t->nrecs;
	ssize_t found = -1;
	for (size_t k = 0; k <= n && found < 0; k++) {
		size_t vr = backward ? (start + n - k) % n : (start + k) % n;
		size_t ri, base;
		struct tx *p = tx_vrec(t, vr, &ri, &base);
		const struct rec *r = &p->recs[ri];
		if (!REC_LINES(r))
			continue;
		size_t len;
		const char *raw = tx_raw(p, r, &len);
		bool hit = view_search_in(s, raw, len) != NULL;
		bool in_result = false;
		if (!hit && REC_TYPE(r) == R_CALL) {
			uint32_t res = tx_result_of(p, (uint32_t)ri);
			if (res != UINT32_MAX) {
				raw = tx_raw(p, &p->recs[res], &len);
				hit = in_result = view_search_in(s, raw, len) != NULL;
			}
		}
		if (!hit)
			continue;
		/* A match inside a folded tool call opens it: the text is what
		 * was searched for, not the one-line summary. */
		if (foldable(r) && !(REC_FLAGS(r) & RF_OPEN)) {
			bool summary_hit = false;
			if (!in_result) {
				tx_line(v, base + r->first, &lo);
				summary_hit = view_search_in(s, sb_str(&lo.text), lo.text.len) != NULL;
			}
			if (!summary_hit) {
				tx_toggle(p, ri);
				view_set_lines(v, tx_shown_lines(t));
				view_redraw(v);
				base = p == t ? 0 : t->total + 1;
			}
		}
		uint32_t nl = REC_LINES(r);
		for (uint32_t j = 0; j < nl; j++) {
			uint32_t sub = backward ? nl - 1 - j : j;
			size_t line = base + r->first + sub;
			/* In the first and last record visited, honour the cursor. */
			if (k == 0 && (backward ? line > from : line < from))
				continue;
			if (k == n && (backward ? line <= from : line >= from))
				continue;
			tx_line(v, line, &lo);
			if (view_search_in(s, sb_str(&lo.text), lo.text.len)) {
				found = (ssize_t)line;
				break;
			}
		}
	}
	lo_free(&lo);
	return found;
}

static void tx_tick(struct view *v)
{
	struct tx *t = v->priv;
	struct stat sb;
	if (!v->loading && t->fd >= 0 && fstat(t->fd, &sb) == 0 && (uint64_t)sb.st_size > t->scanned)
		v->loading = true;
}

static void tx_title(struct view *v, struct sbuf *out)
{
	struct tx *t = v->priv;
	if (t->placeholder)
		return;
	sb_printf(out, "%zu records", tx_vrec_count(t));
}

static const char *tx_file(struct view *v, long *line)
{
	struct tx *t = v->priv;
	*line = 0;
	/* a tail record's line in the file is not known before the head gets there */
	size_t vr = tx_vrec_of_line(t, v->lineno);
	if (vr < t->nrecs && !(REC_FLAGS(&t->recs[vr]) & RF_MEM))
		*line = (long)vr + 1;
	return t->path;
}

void tx_free_index(struct tx *t)
{
	free(t->block);
	free(t->ibuf);
	free(t->recs);
	free(t->res_key);
	free(t->res_val);
	sb_free(&t->r.text);
	free(t->r.l);
}

static void tx_done(struct view *v)
{
	struct tx *t = v->priv;
	if (t->tail)
		tx_tail_free(t->tail);
	if (t->fd >= 0)
		close(t->fd);
	if (t->run) {
		run_model_unlisten(t->run, on_change, v);
		run_model_free(t->run);
	}
	free(t->path);
	free(t->placeholder);
	sb_free(&t->mem);
	tx_free_index(t);
}

const struct view_ops transcript_view_ops = {
	.type = "transcript",
	.private_size = sizeof(struct tx),
	.open = tx_open,
	.line = tx_line,
	.request = tx_request,
	.title = tx_title,
	.pump = tx_pump,
	.find = tx_find,
	.tick = tx_tick,
	.file = tx_file,
	.done = tx_done,
};
