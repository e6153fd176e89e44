/* The transcript view's G while the file is still being indexed: the end
 * first. Indexing parses every record, about half a second for a million,
 * which G cannot wait for. So G indexes the file's last records on their
 * own, in a second struct tx over [start, end of file), shown after the
 * head's lines and one gap line. The head stops where the tail starts;
 * once it gets there it indexes the tail's bytes itself (the tail's folds
 * carried over, the cursor kept on its record) and the tail is dropped.
 * Also the mapping of display lines and records onto the two parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "views/transcript_int.h"

enum { TAIL_MIN = 1 << 20, TAIL_FIRST = 256 << 10, TAIL_MAX = 16 << 20 };

size_t tx_rec_of_line(const struct tx *t, size_t line)
{
	size_t lo = 0, hi = t->nrecs;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->recs[mid].first <= line)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The record at a file offset (records are in file order), or nrecs. */
static size_t rec_at_offset(const struct tx *t, uint64_t off)
{
	size_t lo = 0, hi = t->nrecs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (REC_OFF(&t->recs[mid]) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nrecs && REC_OFF(&t->recs[lo]) == off ? lo : t->nrecs;
}

size_t tx_shown_lines(const struct tx *t)
{
	return t->total + (t->tail ? 1 + (size_t)t->tail->total : 0);
}

/* The part (head or tail) that shows display line `line`, and the line in
 * it; NULL for the gap line. */
struct tx *tx_part_of(struct tx *t, size_t line, size_t *local)
{
	*local = line;
	if (!t->tail || line < t->total)
		return t;
	if (line == t->total)
		return NULL;
	*local = line - t->total - 1;
	return t->tail;
}

void tx_tail_free(struct tx *tl)
{
	tx_free_index(tl); /* its fd is the head's */
	free(tl);
}

/* Index [the first line start at or after `from`, size) on its own. */
static struct tx *tail_index(const struct tx *t, uint64_t from, uint64_t size)
{
	struct tx *tl = xcalloc(1, sizeof(*tl));
	tl->fd = t->fd;
	tl->block = xmalloc(BLOCK);
	char buf[4096];
	for (uint64_t at = from; from > 0 && at < size;) {
		ssize_t got = pread(t->fd, buf, sizeof(buf), (off_t)(at - 1));
		if (got <= 0)
			break;
		const char *nl = memchr(buf, '\n', (size_t)got);
		if (nl) {
			from = at + (uint64_t)(nl - buf);
			break;
		}
		at += (uint64_t)got;
		from = at;
	}
	tl->scanned = from;
	tl->limit = size;
	while (tl->scanned < tl->limit && tx_index_file(tl, 1000, true))
		;
	return tl;
}

/* G while indexing: the end first, with enough before it that every tool
 * result there has its call. */
void tx_tail_start(struct view *v, struct tx *t)
{
	struct stat st;
	if (t->tail || t->run || t->fd < 0 || fstat(t->fd, &st) != 0)
		return;
	uint64_t size = (uint64_t)st.st_size;
	if (size <= t->scanned || size - t->scanned < TAIL_MIN)
		return;
	struct tx *tl = NULL;
	for (uint64_t window = TAIL_FIRST;; window *= 4) {
		uint64_t from = size > window ? size - window : 0;
		if (from <= t->scanned + TAIL_MIN / 2)
			return; /* the head is nearly there: let it finish */
		if (tl)
			tx_tail_free(tl);
		tl = tail_index(t, from, size);
		if (!tl->orphans || window >= TAIL_MAX)
			break;
	}
	t->tail = tl;
	t->resume_limit = t->limit;
	t->limit = tl->recs ? REC_OFF(&tl->recs[0]) : tl->scanned;
	view_set_lines(v, tx_shown_lines(t));
}

/* The head got to where the tail starts: it takes the tail's records. */
static void tail_merge(struct view *v, struct tx *t)
{
	struct tx *tl = t->tail;
	size_t local = 0;
	bool at_tail = v->lineno > t->total;
	struct tx *cur = at_tail ? tx_part_of(t, v->lineno, &local) : NULL;
	size_t cri = cur ? tx_rec_of_line(cur, local) : 0;
	uint64_t coff = cur ? REC_OFF(&cur->recs[cri]) : 0;
	size_t csub = cur ? local - cur->recs[cri].first : 0;
	size_t above = v->lineno - v->offset;
	t->tail = NULL;
	t->limit = tl->limit;
	while (t->scanned < t->limit && tx_index_file(t, 1000, !v->ticking))
		;
	t->limit = t->resume_limit;
	for (size_t i = 0; i < tl->nrecs; i++) {
		if (!(REC_FLAGS(&tl->recs[i]) & RF_OPEN))
			continue;
		size_t h = rec_at_offset(t, REC_OFF(&tl->recs[i]));
		if (h < t->nrecs && !(REC_FLAGS(&t->recs[h]) & RF_OPEN))
			tx_toggle(t, h);
	}
	tx_tail_free(tl);
	view_set_lines(v, tx_shown_lines(t));
	size_t h = at_tail ? rec_at_offset(t, coff) : t->nrecs;
	if (h < t->nrecs && !v->follow) {
		size_t line = t->recs[h].first + csub;
		v->offset = line > above ? line - above : 0;
		view_select(v, line);
	}
	view_redraw(v);
}

/* Records in display order over the head and the tail: vr < t->nrecs is
 * the head's record vr, the rest the tail's. */
size_t tx_vrec_count(const struct tx *t)
{
	return t->nrecs + (t->tail ? t->tail->nrecs : 0);
}

struct tx *tx_vrec(struct tx *t, size_t vr, size_t *ri, size_t *base)
{
	if (vr < t->nrecs || !t->tail) {
		*ri = vr;
		*base = 0;
		return t;
	}
	*ri = vr - t->nrecs;
	*base = t->total + 1;
	return t->tail;
}

/* The record showing display line `line`; SIZE_MAX on the gap. */
size_t tx_vrec_of_line(struct tx *t, size_t line)
{
	size_t local;
	struct tx *p = tx_part_of(t, line, &local);
	if (!p || !p->nrecs)
		return SIZE_MAX;
	size_t ri = tx_rec_of_line(p, local);
	return p == t ? ri : t->nrecs + ri;
}

size_t tx_vrec_line(struct tx *t, size_t vr)
{
	size_t ri, base;
	struct tx *p = tx_vrec(t, vr, &ri, &base);
	return base + p->recs[ri].first;
}

bool tx_tail_pumped(struct view *v, struct tx *t, size_t head, bool more)
{
	if (t->total != head) {
		/* what is below the gap moved down with the head's new lines */
		size_t d = t->total - head;
		if (v->lineno >= head)
			v->lineno += d;
		if (v->offset >= head)
			v->offset += d;
		view_redraw(v);
	}
	if (more)
		return true;
	tail_merge(v, t);
	return t->fd >= 0 && t->scanned < t->limit;
}
