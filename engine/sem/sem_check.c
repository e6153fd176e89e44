/* The semantic check of a source/Rust pair: both files read, each Rust
 * entry paired with the source kernel it stands for (by name, a
 * translator variant by its suffix, the rest by elimination or by which
 * compares best), each pair compared (sem_pair.c), and the findings
 * gathered into the public report. */
#include "engine/base/files.h"
#include "engine/sem/sem_pair.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spriv {
	struct pymod m;
	bool have_m;
	struct rfile f;
	struct sffi ffi;
	bool have_ffi;
	char **strings;
	size_t nstrings, capstrings;
};

static const char *keep(struct spriv *p, char *s)
{
	p->strings = xgrow(p->strings, &p->capstrings, p->nstrings + 1, sizeof(*p->strings));
	p->strings[p->nstrings++] = s;
	return s;
}

static void lower(const char *s, size_t n, char *out, size_t max)
{
	size_t k = 0;
	while (n && *s == '_')
		s++, n--;
	for (size_t i = 0; i < n && k < max - 1; i++)
		out[k++] = (char)tolower((unsigned char)s[i]);
	out[k] = '\0';
}

/* How well a Rust entry's name fits a kernel's; a variant's Constant. */
static int name_score(const struct pymod *m, const struct pm_func *k, const struct rfn *fn, char *vparam,
		      size_t vmax, bool *vvalue)
{
	char a[128], b[128];
	lower(k->name, strlen(k->name), a, sizeof(a));
	lower(fn->name, fn->n, b, sizeof(b));
	vparam[0] = '\0';
	if (!strcmp(a, b))
		return 100;
	size_t la = strlen(a), lb = strlen(b);
	/* {kernel}_{constant}_true / _false: a structural variant */
	if (lb > la + 1 && !strncmp(a, b, la) && b[la] == '_') {
		const char *rest = b + la + 1;
		const char *u = strrchr(rest, '_');
		if (u && (!strcmp(u + 1, "true") || !strcmp(u + 1, "false"))) {
			const struct py_node *ps = k->def->kids[1];
			for (size_t i = 0; ps && i < ps->nkids; i++) {
				const struct py_node *q = ps->kids[i];
				if (q->n == (size_t)(u - rest) && !strncasecmp(q->s, rest, q->n)) {
					snprintf(vparam, vmax, "%.*s", (int)q->n, q->s);
					*vvalue = !strcmp(u + 1, "true");
					return 95;
				}
			}
		}
	}
	/* {kernel}_{constant}_{eq|ne|lt|le|gt|ge}_{N}: a variant on a comparison
	 * (layer_norm_legacy's BLOCK_N != 1); which side of it the entry is,
	 * the case analysis finds (a condition of the source alone) */
	if (lb > la + 1 && !strncmp(a, b, la) && b[la] == '_') {
		const char *rest = b + la + 1, *u = strrchr(rest, '_');
		size_t digits = u ? strspn(u + 1, "0123456789") : 0;
		static const char *const ops[] = {"_eq", "_ne", "_lt", "_le", "_gt", "_ge"};
		for (size_t i = 0; u && digits && !u[1 + digits] && u - rest > 3 && i < TP_ARRAY_LEN(ops); i++)
			if (!strncmp(u - 3, ops[i], 3)) {
				const struct py_node *ps = k->def->kids[1];
				for (size_t j = 0; ps && j < ps->nkids; j++)
					if (ps->kids[j]->n == (size_t)(u - 3 - rest) &&
					    !strncasecmp(ps->kids[j]->s, rest, ps->kids[j]->n)) {
						/* `_eq_`: the Constant is that value there */
						if (i == 0)
							snprintf(vparam, vmax, "=%.*s=%s", (int)ps->kids[j]->n,
								 ps->kids[j]->s, u + 1);
						return 95;
					}
			}
	}
	(void)m;
	/* the same words with _kernel and the like around them */
	if ((la > lb && !strncmp(a, b, lb)) || (lb > la && !strncmp(a, b, la)))
		return 80;
	if (strstr(a, b) || strstr(b, a))
		return 70;
	return 0;
}

static void add_finding(struct sem_report *r, struct spriv *pv, size_t entry, const struct sfind *f)
{
	r->findings = xrealloc(r->findings, (r->nfindings + 1) * sizeof(*r->findings));
	r->findings[r->nfindings++] = (struct sem_finding){
		(enum sem_sev)f->sev, f->rule, keep(pv, xstrdup(f->msg)),
		f->pv ? keep(pv, xstrdup(f->pv)) : NULL, f->rv ? keep(pv, xstrdup(f->rv)) : NULL, f->pl, f->rl, entry};
	struct sem_entry *e = &r->entries[entry];
	if (f->sev == SEM_CRITICAL)
		e->ncritical++, r->ncritical++;
	else if (f->sev == SEM_WARN)
		e->nwarn++, r->nwarn++;
	else
		e->nnote++, r->nnote++;
}

static size_t add_entry(struct sem_report *r, const char *source, const char *rust)
{
	r->entries = xrealloc(r->entries, (r->nentries + 1) * sizeof(*r->entries));
	r->entries[r->nentries] = (struct sem_entry){source, rust, "", 0, 0, 0, 0, 0, 0, 0};
	return r->nentries++;
}

static int pair_crit(const struct spair *p)
{
	int n = 0;
	for (size_t i = 0; i < p->finds.n; i++)
		n += p->finds.v[i].sev == SEM_CRITICAL;
	return n;
}

int sem_check(const struct sem_input *in, struct sem_report *out, struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	struct spriv *pv = xcalloc(1, sizeof(*pv));
	out->priv = pv;
	if (pymod_parse(&pv->m, in->py_name, in->py_text, in->py_len, err) < 0) {
		pv->have_m = true;
		return -1;
	}
	pv->have_m = true;
	rs_parse(&pv->f, in->rs_text, in->rs_len);
	if (pv->f.error) {
		tp_err_set(err, TP_EXIT_USAGE, "%s:%s", in->rs_name, pv->f.error);
		return -1;
	}
	if (in->ffi_text) {
		sem_ffi_read(in->ffi_text, in->ffi_len, &pv->ffi);
		pv->have_ffi = true;
		out->with_ffi = true;
	}
	const struct pm_func *ks[64];
	size_t nk = pymod_kernels(&pv->m, ks, 64);
	const struct rfn *es[64];
	size_t ne = 0;
	for (size_t i = 0; i < pv->f.nfns && ne < 64; i++)
		if (pv->f.fns[i].entry)
			es[ne++] = &pv->f.fns[i];
	/* pair each entry with a kernel */
	int pick[64];
	char vparam[64][64];
	bool vvalue[64] = {0};
	bool taken[64] = {0};
	for (size_t e = 0; e < ne; e++) {
		pick[e] = -1;
		int best = 0;
		for (size_t k = 0; k < nk; k++) {
			char vp[64];
			bool vv = false;
			int s = name_score(&pv->m, ks[k], es[e], vp, sizeof(vp), &vv);
			if (s > best && (s >= 95 || !taken[k])) {
				best = s;
				pick[e] = (int)k;
				memcpy(vparam[e], vp, sizeof(vp));
				vvalue[e] = vv;
			}
		}
		if (pick[e] >= 0)
			taken[pick[e]] = true;
	}
	struct spair *pairs = xcalloc(ne + 1, sizeof(*pairs));
	for (size_t e = 0; e < ne; e++) {
		if (pick[e] < 0) {
			/* by elimination, else by which compares best */
			int left = -1, nleft = 0;
			for (size_t k = 0; k < nk; k++)
				if (!taken[k])
					left = (int)k, nleft++;
			if (nleft == 1) {
				pick[e] = left;
			} else if (nleft > 1) {
				int best_crit = -1;
				for (size_t k = 0; k < nk; k++) {
					if (taken[k])
						continue;
					struct spair t = {.m = &pv->m, .k = ks[k], .f = &pv->f, .fn = es[e],
							  .ffi = pv->have_ffi ? &pv->ffi : NULL};
					sem_pair_run(&t);
					int c = pair_crit(&t);
					sem_pair_free(&t);
					if (best_crit < 0 || c < best_crit) {
						best_crit = c;
						pick[e] = (int)k;
					}
				}
			}
			if (pick[e] >= 0)
				taken[pick[e]] = true;
			vparam[e][0] = '\0';
		}
		if (pick[e] < 0)
			continue;
		struct spair *p = &pairs[e];
		p->m = &pv->m;
		p->k = ks[pick[e]];
		p->f = &pv->f;
		p->fn = es[e];
		p->ffi = pv->have_ffi ? &pv->ffi : NULL;
		p->variant_param = vparam[e][0] && vparam[e][0] != '=' ? vparam[e] : NULL;
		p->variant_value = vvalue[e];
		if (vparam[e][0] == '=') { /* "=BLOCK_N=1" */
			char *eq = strchr(vparam[e] + 1, '=');
			*eq = '\0';
			p->variant_eq_param = vparam[e] + 1;
			p->variant_eq_value = strtoll(eq + 1, NULL, 10);
		}
		sem_pair_run(p);
	}
	/* the report */
	for (size_t e = 0; e < ne; e++) {
		const char *rust = keep(pv, xstrndup(es[e]->name, es[e]->n));
		if (pick[e] < 0) {
			size_t x = add_entry(out, "", rust);
			out->entries[x].rs_first = es[e]->line;
			out->entries[x].rs_last = es[e]->end_line;
			struct sfind f = {SEM_WARN, "sem.entry", (char *)"the Rust entry has no kernel in the source", NULL,
					  NULL, 0, es[e]->line};
			f.msg = xasprintf("the Rust entry %s has no kernel in the source", rust);
			add_finding(out, pv, x, &f);
			free(f.msg);
			continue;
		}
		struct spair *p = &pairs[e];
		size_t x = add_entry(out, p->k->name, rust);
		struct sem_entry *en = &out->entries[x];
		en->covers = p->covers ? keep(pv, xstrdup(p->covers)) : "";
		en->py_first = p->py_first;
		en->py_last = p->py_last;
		en->rs_first = p->rs_first;
		en->rs_last = p->rs_last;
		for (size_t i = 0; i < p->finds.n; i++)
			add_finding(out, pv, x, &p->finds.v[i]);
		for (size_t i = 0; i < p->links.n; i++) {
			out->links = xrealloc(out->links, (out->nlinks + 1) * sizeof(*out->links));
			out->links[out->nlinks++] =
				(struct sem_link){p->links.v[i].pl, p->links.v[i].rl, x, p->links.v[i].differs};
		}
	}
	for (size_t k = 0; k < nk; k++) {
		if (taken[k])
			continue;
		size_t x = add_entry(out, ks[k]->name, "");
		out->entries[x].py_first = ks[k]->def->line;
		out->entries[x].py_last = py_end_line(&pv->m.py, ks[k]->def);
		struct sfind f = {ne ? SEM_NOTE : SEM_CRITICAL, "sem.entry", NULL, NULL, NULL, ks[k]->def->line, 0};
		f.msg = xasprintf(ne ? "kernel %s has no Rust entry: it is not ported"
				     : "kernel %s has no Rust entry (the Rust has no #[cutile::entry] function)",
				  ks[k]->name);
		add_finding(out, pv, x, &f);
		free(f.msg);
	}
	if (!nk) {
		size_t x = add_entry(out, "", "");
		struct sfind f = {SEM_CRITICAL, "sem.entry", (char *)"the source has no kernel (@ct.kernel or @triton.jit)",
				  NULL, NULL, 0, 0};
		add_finding(out, pv, x, &f);
	}
	for (size_t e = 0; e < ne; e++)
		sem_pair_free(&pairs[e]);
	free(pairs);
	return 0;
}

int sem_check_files(const char *py_path, const char *rs_path, const char *ffi_path, struct sem_report *out,
		    struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	size_t pl, rl, fl = 0;
	struct tp_err e = {0};
	char *py = read_file(py_path, &pl, &e);
	if (!py) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", e.msg);
		return -1;
	}
	char *rs = read_file(rs_path, &rl, &e);
	if (!rs) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", e.msg);
		free(py);
		return -1;
	}
	char *ffi = NULL;
	char *guess = NULL;
	if (!ffi_path) {
		/* ffi.rs beside the kernel */
		const char *slash = strrchr(rs_path, '/');
		guess = slash ? xasprintf("%.*s/ffi.rs", (int)(slash - rs_path), rs_path) : xstrdup("ffi.rs");
		if (strcmp(guess, rs_path) && path_is_file(guess))
			ffi_path = guess;
	}
	if (ffi_path) {
		ffi = read_file(ffi_path, &fl, &e);
		if (!ffi && !guess) {
			tp_err_set(err, TP_EXIT_USAGE, "%s", e.msg);
			free(py);
			free(rs);
			return -1;
		}
	}
	struct sem_input in = {py_path, py, pl, rs_path, rs, rl, ffi, fl};
	int rc = sem_check(&in, out, err);
	free(py);
	free(rs);
	free(ffi);
	free(guess);
	return rc;
}

void sem_report_free(struct sem_report *r)
{
	struct spriv *pv = r->priv;
	if (pv) {
		if (pv->have_m)
			pymod_free(&pv->m);
		rs_file_free(&pv->f);
		if (pv->have_ffi)
			sem_ffi_free(&pv->ffi);
		for (size_t i = 0; i < pv->nstrings; i++)
			free(pv->strings[i]);
		free(pv->strings);
		free(pv);
	}
	free(r->entries);
	free(r->findings);
	free(r->links);
	memset(r, 0, sizeof(*r));
}
