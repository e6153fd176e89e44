/* The source view's document: two files as lines, the semantic check of
 * engine/sem over them, and what it says about each line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/source_int.h"
#include "engine/base/files.h"

static void index_lines(struct src_file *f)
{
	size_t cap = 0, i = 0;
	f->n = 0;
	if (!f->len) {
		f->mark = xmalloc(1);
		return;
	}
	do {
		f->start = xgrow(f->start, &cap, f->n + 1, sizeof(*f->start));
		f->start[f->n++] = i;
		const char *nl = memchr(f->text + i, '\n', f->len - i);
		if (!nl)
			break;
		i = (size_t)(nl - f->text) + 1;
	} while (i < f->len);
	f->mark = xmalloc(f->n);
	memset(f->mark, MARK_NONE, f->n);
}

const char *src_line(const struct src_file *f, size_t i, size_t *len)
{
	if (i >= f->n) {
		*len = 0;
		return "";
	}
	size_t b = f->start[i];
	size_t e = i + 1 < f->n ? f->start[i + 1] : f->len;
	while (e > b && (f->text[e - 1] == '\n' || f->text[e - 1] == '\r'))
		e--;
	*len = e - b;
	return f->text + b;
}

static const char *keep(struct src_doc *d, char *s)
{
	d->strings = xrealloc(d->strings, (d->nstrings + 1) * sizeof(*d->strings));
	d->strings[d->nstrings++] = s;
	return s;
}

static void note(struct src_doc *d, int side, long line, enum src_mark m, const char *text)
{
	struct src_file *f = &d->f[side];
	if (line < 1 || (size_t)line > f->n)
		return;
	if (m < f->mark[line - 1])
		f->mark[line - 1] = (uint8_t)m;
	d->notes = xrealloc(d->notes, (d->nnotes + 1) * sizeof(*d->notes));
	d->notes[d->nnotes++] = (struct src_note){side, (uint32_t)line, (uint8_t)m, text};
}

/* A path under the working directory is shown relative to it. */
static char *shown_name(const char *path)
{
	char cwd[4096];
	size_t n = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
	if (n && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

static int read_side(struct src_file *f, const char *path, struct tp_err *err)
{
	f->path = xstrdup(path);
	f->shown = shown_name(path);
	f->text = read_file(path, &f->len, err);
	if (!f->text)
		return -1;
	index_lines(f);
	return 0;
}

/* A side from text in memory (a changeset's files): no path to edit. */
static void text_side(struct src_file *f, const char *name, const char *text)
{
	f->shown = xstrdup(name);
	f->text = xstrdup(text);
	f->len = strlen(text);
	index_lines(f);
}

/* A refusal "NAME:LINE:COL: unsupported: X" marks its line. */
static void note_refusal(struct src_doc *d, const char *p, const char *msg)
{
	size_t pl = strlen(p);
	long line = 0;
	if (strncmp(msg, p, pl) == 0 && msg[pl] == ':')
		line = strtol(msg + pl + 1, NULL, 10);
	note(d, SIDE_PY, line, MARK_CRITICAL, keep(d, xstrdup(msg)));
	d->start_line = (int)line;
}

static void link_check(struct src_doc *d)
{
	const struct sem_report *r = &d->sem;
	d->nentries = r->nentries;
	d->entry_first = xcalloc(r->nentries ? r->nentries : 1, sizeof(uint32_t));
	d->entry_last = xcalloc(r->nentries ? r->nentries : 1, sizeof(uint32_t));
	for (size_t e = 0; e < r->nentries; e++) {
		d->entry_first[e] = r->entries[e].rs_first > 0 ? (uint32_t)r->entries[e].rs_first : 0;
		d->entry_last[e] = r->entries[e].rs_last > 0 ? (uint32_t)r->entries[e].rs_last : 0;
	}
	size_t cap = 0;
	for (size_t i = 0; i < r->nlinks; i++) {
		const struct sem_link *l = &r->links[i];
		d->links = xgrow(d->links, &cap, d->nlinks + 1, sizeof(*d->links));
		d->links[d->nlinks++] = (struct src_link){{(uint32_t)l->py_line, (uint32_t)l->rs_line},
							  (uint32_t)l->entry, l->differs};
	}
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct sem_finding *f = &r->findings[i];
		enum src_mark m = f->sev == SEM_CRITICAL ? MARK_CRITICAL : f->sev == SEM_WARN ? MARK_WARN : MARK_INFO;
		const char *text = keep(d, xasprintf("%s %s: %s", sem_sev_name(f->sev), f->rule, f->message));
		note(d, SIDE_PY, f->py_line, m, text);
		note(d, SIDE_RS, f->rs_line, m, text);
	}
}

/* The Python side read as `py` (the name messages use), the Rust side
 * read or (have_rs false) translated here, then the semantic check of the
 * pair, with its launcher: ffi_text, or for a kernel on disk (rs_path) the
 * ffi.rs beside it. */
static int compare(struct src_doc *d, const char *py, bool have_rs, const char *rs_path,
		   const char *ffi_text)
{
	const struct src_file *pf = &d->f[SIDE_PY];
	if (!have_rs) {
		struct port_op *op = NULL;
		struct tp_err perr = {0};
		/* a file whose kernels partly translate shows those, and each
		 * refused kernel's construct on its line */
		if (port_open_source_partial(py, pf->text, pf->len, NULL, &op, &perr) < 0) {
			d->problem = xstrdup(perr.msg);
			note_refusal(d, py, perr.msg);
			struct src_file *f = &d->f[SIDE_RS];
			f->shown = xstrdup("(no translation)");
			f->text = xstrdup("");
			index_lines(f);
			return 0;
		}
		struct src_file *f = &d->f[SIDE_RS];
		f->text = port_kernel_rs(op, py);
		f->len = strlen(f->text);
		const struct port_refusal *refused;
		size_t nref = port_refused(op, &refused);
		for (size_t i = nref; i-- > 0;) /* the reader starts at the first */
			note_refusal(d, py, refused[i].message);
		if (nref) {
			struct sbuf why = SBUF_INIT;
			sb_printf(&why, "%zu kernel%s not translated: ", nref, nref == 1 ? "" : "s");
			for (size_t i = 0; i < nref; i++)
				sb_printf(&why, "%s%s (kernel %s)", i ? "; " : "", refused[i].message,
					  refused[i].kernel);
			d->untranslated = sb_detach(&why);
			char **names = port_kernel_names(op);
			size_t n = strv_len(names);
			f->shown = xasprintf("%s_module (translated: %zu of %zu kernels)", port_op_name(op), n,
					     n + nref);
			strv_free(names);
		} else {
			f->shown = xasprintf("%s_module (translated)", port_op_name(op));
		}
		index_lines(f);
		port_close(op);
	}
	const struct src_file *rf = &d->f[SIDE_RS];
	char *ffi = ffi_text ? xstrdup(ffi_text) : NULL;
	size_t flen = ffi ? strlen(ffi) : 0;
	if (rs_path && !ffi) {
		const char *slash = strrchr(rs_path, '/');
		char *guess = slash ? xasprintf("%.*s/ffi.rs", (int)(slash - rs_path), rs_path) : xstrdup("ffi.rs");
		if (strcmp(guess, rs_path) && path_is_file(guess))
			ffi = read_file(guess, &flen, NULL);
		free(guess);
	}
	struct sem_input in = {py, pf->text, pf->len, rf->shown, rf->text, rf->len, ffi, flen};
	struct tp_err err = {0};
	if (sem_check(&in, &d->sem, &err) < 0) {
		sem_report_free(&d->sem);
		d->problem = xstrdup(err.msg);
		note_refusal(d, py, err.msg);
		free(ffi);
		return 0;
	}
	free(ffi);
	d->have_sem = true;
	/* the reader starts at the first kernel the check paired */
	for (size_t e = 0; e < d->sem.nentries && !d->start_line; e++)
		d->start_line = d->sem.entries[e].py_first;
	link_check(d);
	return 0;
}

int src_doc_load(struct src_doc *d, const char *py, const char *rs, struct tp_err *err)
{
	memset(d, 0, sizeof(*d));
	if (read_side(&d->f[SIDE_PY], py, err) < 0)
		return -1;
	if (rs && read_side(&d->f[SIDE_RS], rs, err) < 0)
		return -1;
	return compare(d, py, rs != NULL, rs, NULL);
}

int src_doc_load_texts(struct src_doc *d, const struct src_texts *t)
{
	memset(d, 0, sizeof(*d));
	text_side(&d->f[SIDE_PY], t->py_name, t->py);
	if (t->rs)
		text_side(&d->f[SIDE_RS], t->rs_name, t->rs);
	return compare(d, t->py_name, t->rs != NULL, NULL, t->ffi);
}

void src_doc_free(struct src_doc *d)
{
	for (int s = 0; s < 2; s++) {
		free(d->f[s].path);
		free(d->f[s].shown);
		free(d->f[s].text);
		free(d->f[s].start);
		free(d->f[s].mark);
	}
	if (d->have_sem)
		sem_report_free(&d->sem);
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	free(d->strings);
	free(d->problem);
	free(d->untranslated);
	free(d->links);
	free(d->notes);
	free(d->entry_first);
	free(d->entry_last);
	memset(d, 0, sizeof(*d));
}
