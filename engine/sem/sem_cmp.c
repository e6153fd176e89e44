/* Comparing the two graphs node by node. Two nodes compute the same when
 * they are the same operation with the same attributes, dims, element
 * type and operands — operands of commutative operations in any order,
 * polynomial terms matched as a set, parameters through the binding (a
 * pair the driver left open is bound here, first come, and undone when
 * the comparison that bound it fails), loops through their bounds, and
 * carried values coinductively (a slot pair is assumed while its update
 * is compared). Hints are compared apart: a difference is a WARN (or a
 * NOTE where the reference's environment explains it) and the nodes still
 * count as the same. What the canonical form flagged (exp written as
 * exp2, fma as a multiply-add) gives a NOTE. */
#include "engine/sem/sem_cmp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings ---- */

void sf_add(struct sfinds *f, int sev, const char *rule, int pl, int rl, char *pv, char *rv,
	    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof(*f->v));
	f->v[f->n++] = (struct sfind){sev, rule, m, pv, rv, pl, rl};
}

void sf_truncate(struct sfinds *f, size_t n)
{
	while (f->n > n) {
		struct sfind *x = &f->v[--f->n];
		free(x->msg);
		free(x->pv);
		free(x->rv);
	}
}

void sf_free(struct sfinds *f)
{
	sf_truncate(f, 0);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* ---- the trail ---- */

enum { TR_BIND, TR_UNI, TR_UNI_R, TR_LOOP, TR_SLOT, TR_MEMO };
struct strail {
	int kind;
	int a, b;
	uint64_t key;
};

static void trail(struct scmp *c, int kind, int a, int b, uint64_t key)
{
	c->tr = xgrow(c->tr, &c->captr, c->ntr + 1, sizeof(*c->tr));
	c->tr[c->ntr++] = (struct strail){kind, a, b, key};
}

struct smark scmp_mark(const struct scmp *c)
{
	return (struct smark){c->ntr, c->out->n};
}

static size_t memo_slot(const struct scmp *c, uint64_t key)
{
	size_t k = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (c->mcap - 1);
	while (c->mkey[k] && c->mkey[k] != key)
		k = (k + 1) & (c->mcap - 1);
	return k;
}

static void memo_grow(struct scmp *c)
{
	uint64_t *ok = c->mkey;
	uint8_t *ov = c->mval;
	size_t ocap = c->mcap;
	c->mcap = ocap ? ocap * 2 : 1024;
	c->mkey = xcalloc(c->mcap, sizeof(*c->mkey));
	c->mval = xcalloc(c->mcap, sizeof(*c->mval));
	for (size_t i = 0; i < ocap; i++)
		if (ok[i]) {
			size_t k = memo_slot(c, ok[i]);
			c->mkey[k] = ok[i];
			c->mval[k] = ov[i];
		}
	free(ok);
	free(ov);
}

static uint8_t memo_get(const struct scmp *c, sid p, sid r)
{
	uint64_t key = (uint64_t)p << 32 | r;
	size_t k = memo_slot(c, key);
	return c->mkey[k] ? c->mval[k] : 0;
}

static void memo_put(struct scmp *c, sid p, sid r, uint8_t v)
{
	if ((c->mn + 1) * 2 > c->mcap)
		memo_grow(c);
	uint64_t key = (uint64_t)p << 32 | r;
	size_t k = memo_slot(c, key);
	if (!c->mkey[k]) {
		c->mkey[k] = key;
		c->mn++;
	}
	c->mval[k] = v;
	trail(c, TR_MEMO, 0, 0, key);
}

void scmp_undo(struct scmp *c, struct smark m)
{
	while (c->ntr > m.tr) {
		struct strail *t = &c->tr[--c->ntr];
		switch (t->kind) {
		case TR_BIND:
			c->b->rs_of_py[t->a] = -1;
			c->b->py_of_rs[t->b] = -1;
			break;
		case TR_UNI:
			c->uni[t->a].op = 0;
			break;
		case TR_UNI_R:
			c->uni_r[t->a].op = 0;
			break;
		case TR_LOOP:
			c->loop_r[t->a] = -1;
			c->loop_p[t->b] = -1;
			break;
		case TR_SLOT:
			c->slot_r[t->a][t->b] = -1;
			break;
		case TR_MEMO:
			c->mval[memo_slot(c, t->key)] = 0;
			break;
		}
	}
	sf_truncate(c->out, m.fn);
}

/* ---- setup ---- */

void scmp_init(struct scmp *c, struct sgraph *p, struct sgraph *r, struct sbind *b, struct sunify *uni,
	       struct sunify *uni_r, struct sfinds *out)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->r = r;
	c->b = b;
	c->uni = uni;
	c->uni_r = uni_r;
	c->out = out;
	c->loop_r = xmalloc((p->nloops + 1) * sizeof(int));
	c->loop_p = xmalloc((r->nloops + 1) * sizeof(int));
	for (size_t i = 0; i < p->nloops; i++)
		c->loop_r[i] = -1;
	for (size_t i = 0; i < r->nloops; i++)
		c->loop_p[i] = -1;
	c->slot_r = xcalloc(p->nloops + 1, sizeof(int *));
	for (size_t i = 0; i < p->nloops; i++) {
		c->slot_r[i] = xmalloc((p->loops[i].nslots + 1) * sizeof(int));
		for (size_t k = 0; k < p->loops[i].nslots; k++)
			c->slot_r[i][k] = -1;
	}
	memo_grow(c);
}

void scmp_free(struct scmp *c)
{
	for (size_t i = 0; i < c->p->nloops; i++)
		free(c->slot_r[i]);
	free(c->slot_r);
	free(c->loop_r);
	free(c->loop_p);
	free(c->mkey);
	free(c->mval);
	free(c->tr);
	memset(c, 0, sizeof(*c));
}

void scmp_diff(struct scmp *c, sid p, sid r, const char *what)
{
	if (c->dp || c->dr)
		return;
	c->dp = p;
	c->dr = r;
	c->dwhat = what;
}

void scmp_clear_diff(struct scmp *c)
{
	c->dp = c->dr = 0;
	c->dwhat = NULL;
}

char *scmp_render(const struct scmp *c, int side, sid x)
{
	return sg_render_str(side ? c->r : c->p, x, 4);
}

/* ---- types and literals ---- */

bool scmp_same_dt(const struct scmp *c, int p, int r)
{
	if (p == r || p == SDT_NONE || r == SDT_NONE)
		return true;
	if (sdt_is_int(p) && sdt_is_int(r) && p != SDT_BOOL && r != SDT_BOOL)
		return true;
	bool f32 = c->p->cs && c->p->cs->e_is_f32;
	if (f32 && ((p == SDT_E && r == SDT_F32) || (p == SDT_F32 && r == SDT_E)))
		return true;
	return false;
}

static bool float_eq(double a, double b, int dt)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (dt == SDT_F64)
		return a == b;
	/* -inf and the lowest finite f32 stand for each other (rule 2) */
	if ((isinf(a) && fabs(b) >= 3.4e38 && (a < 0) == (b < 0)) ||
	    (isinf(b) && fabs(a) >= 3.4e38 && (a < 0) == (b < 0)))
		return true;
	return (float)a == (float)b;
}

static bool lit_value(const struct snode *n, double *v)
{
	if (n->op == S_FLOAT) {
		*v = n->fval;
		return true;
	}
	if (n->op == S_INT || n->op == S_BOOL) {
		*v = (double)n->ival;
		return true;
	}
	return false;
}

/* ---- hints ---- */

static void hint_note(struct scmp *c, int sev, const struct snode *x, const struct snode *y, const char *fmt,
		      ...) TP_PRINTF(5, 6);
static void hint_note(struct scmp *c, int sev, const struct snode *x, const struct snode *y, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	sf_add(c->out, sev, sev == SEM_WARN ? "sem.hint" : "sem.env", x->line, y->line, NULL, NULL, "%s", m);
	free(m);
}

static const char *rnd_name(int r)
{
	static const char *const n[] = {"nearest-even", "approx", "full", "toward zero", "toward -inf",
					"toward +inf"};
	return r >= 0 && r < 6 ? n[r] : "nearest-even";
}

static void cmp_hints(struct scmp *c, const struct snode *x, const struct snode *y)
{
	const struct shint *a = &x->h, *b = &y->h;
	const char *on = sem_op_name(x->op);
	if (a->latency != b->latency || (a->latency == -2 && !shint_eq(a, b))) {
		char la[48], lb[48];
		if (a->latency == -2)
			snprintf(la, sizeof(la), "%s", a->lat_sym ? a->lat_sym : "a Constant");
		else if (a->latency < 0)
			snprintf(la, sizeof(la), "none");
		else
			snprintf(la, sizeof(la), "%d", a->latency);
		if (b->latency < 0)
			snprintf(lb, sizeof(lb), "none");
		else
			snprintf(lb, sizeof(lb), "%d", b->latency);
		if (a->latency == -1)
			hint_note(c, SEM_NOTE, x, y,
				  "latency hint of the %s: %s in the Rust, where the source leaves it to the compiler", on, lb);
		else
			hint_note(c, SEM_WARN, x, y, "latency hint of the %s: %s in the source, %s in the Rust", on, la,
				  lb);
	}
	int ta = a->tma < 0 ? 1 : a->tma, tb = b->tma < 0 ? 1 : b->tma;
	if (ta != tb)
		hint_note(c, SEM_WARN, x, y, "TMA hint of the %s: %s in the source, %s in the Rust", on,
			  ta ? "allowed" : "disabled", tb ? "allowed" : "disabled");
	int fa = a->ftz < 0 ? 0 : a->ftz, fb = b->ftz < 0 ? 0 : b->ftz;
	if (fa != fb) {
		if (a->ftz < 0 && fb)
			hint_note(c, SEM_NOTE, x, y,
				  "flush-to-zero on the %s in the Rust, where the source leaves it to the "
				  "environment: the reference is compiled with TILEIR_ENABLE_FTZ=1",
				  on);
		else
			hint_note(c, SEM_WARN, x, y, "flush-to-zero of the %s: %s in the source, %s in the Rust", on,
				  fa ? "on" : "off", fb ? "on" : "off");
	}
	int ra = a->rnd < 0 ? RND_NEAREST : a->rnd, rb = b->rnd < 0 ? RND_NEAREST : b->rnd;
	if (ra != rb) {
		if (a->rnd < 0 && rb == RND_APPROX)
			hint_note(c, SEM_NOTE, x, y,
				  "approximate rounding of the %s in the Rust, where the source leaves it to the "
				  "environment: the reference is compiled with TILEIR_ENABLE_APPROX=1",
				  on);
		else
			hint_note(c, SEM_WARN, x, y, "rounding of the %s: %s in the source, %s in the Rust", on,
				  rnd_name(ra), rnd_name(rb));
	}
	int na = a->nan < 0 ? 0 : a->nan, nb = b->nan < 0 ? 0 : b->nan;
	if (na != nb)
		hint_note(c, SEM_WARN, x, y, "NaN propagation of the %s: %s in the source, %s in the Rust", on,
			  na ? "on" : "off", nb ? "on" : "off");
}

static void cmp_flags(struct scmp *c, const struct snode *x, const struct snode *y)
{
	int d = (x->flags ^ y->flags) & (SF_FROM_EXP | SF_FROM_FMA | SF_SIG_POS | SF_FROM_ORDER);
	if (!d)
		return;
	const char *py = "the source", *rs = "the Rust";
	if (d & SF_FROM_EXP) {
		bool src = x->flags & SF_FROM_EXP;
		sf_add(c->out, SEM_NOTE, "sem.same", x->line, y->line, NULL, NULL,
		       "exp(x) in %s is exp2(x * log2(e)) in %s: the same computation (cuTile lowers exp so)",
		       src ? py : rs, src ? rs : py);
	}
	if (d & SF_FROM_FMA) {
		bool src = x->flags & SF_FROM_FMA;
		sf_add(c->out, SEM_NOTE, "sem.same", x->line, y->line, NULL, NULL,
		       "a fused multiply-add in %s is a multiply and an add in %s: the same up to the "
		       "rounding of the product",
		       src ? py : rs, src ? rs : py);
	}
	if (d & SF_FROM_ORDER) {
		bool src = x->flags & SF_FROM_ORDER;
		sf_add(c->out, SEM_NOTE, "sem.same", x->line, y->line, NULL, NULL,
		       "a load with an order (a permuted view) in %s is a load and a permute in %s: the same tile",
		       src ? py : rs, src ? rs : py);
	}
	if (d & SF_SIG_POS) {
		bool src = x->flags & SF_SIG_POS;
		sf_add(c->out, SEM_WARN, "sem.formula", x->line, y->line, NULL, NULL,
		       "sigmoid written exp(x) / (1 + exp(x)) in %s and 1 / (1 + exp(-x)) in %s: equal, "
		       "except where exp(x) overflows (x > 88 in f32), where the first gives NaN",
		       src ? py : rs, src ? rs : py);
	}
}

/* ---- leaves ---- */

static bool kinds_fit(const struct sparam *p, const struct sparam *r)
{
	bool pa = p->kind == SPK_ARRAY, ra = r->kind == SPK_ARRAY;
	return pa == ra;
}

static bool param_eq(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	int i = (int)x->ival;
	struct sbind *b = c->b;
	if (y->op == S_PARAM) {
		int j = (int)y->ival;
		if (b->rs_of_py[i] == j)
			return true;
		if (b->rs_of_py[i] >= 0 || b->py_of_rs[j] >= 0 || c->uni[i].op || c->uni_r[j].op)
			return false;
		const struct sparam *pp = &c->p->params[i], *rp = &c->r->params[j];
		if (!kinds_fit(pp, rp))
			return false;
		b->rs_of_py[i] = j;
		b->py_of_rs[j] = i;
		trail(c, TR_BIND, i, j, 0);
		if (strcmp(pp->name, rp->name))
			sf_add(c->out, SEM_NOTE, "sem.param", pp->line, rp->line, NULL, NULL,
			       "%s %s of the source is %s in the Rust%s", pp->kind == SPK_ARRAY ? "array" : "parameter",
			       pp->name, rp->name,
			       (pp->kind == SPK_CONST) != (rp->kind == SPK_CONST)
				       ? (pp->kind == SPK_CONST ? " (a Constant there, a runtime value here)"
								: " (a runtime value there, a constant here)")
				       : "");
		return true;
	}
	if ((y->op == S_SHAPE || y->op == S_STRIDE) && c->r->n[y->args[0]].op == S_PARAM) {
		int arr = (int)c->r->n[y->args[0]].ival;
		struct sunify *u = &c->uni[i];
		if (u->op)
			return u->op == y->op && u->param == arr && u->axis == (int)y->ival;
		if (b->rs_of_py[i] >= 0 || c->p->params[i].kind == SPK_ARRAY)
			return false;
		*u = (struct sunify){y->op, arr, (int)y->ival};
		trail(c, TR_UNI, i, 0, 0);
		sf_add(c->out, SEM_NOTE, "sem.param", c->p->params[i].line, y->line, NULL, NULL,
		       "%s of the source is %s.%s[%d] in the Rust (given by the launcher)", c->p->params[i].name,
		       c->r->params[arr].name, y->op == S_SHAPE ? "shape" : "stride", (int)y->ival);
		return true;
	}
	return false;
}

/* a Rust parameter left open against a source shape or stride */
static bool param_eq_r(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	int j = (int)y->ival;
	if ((x->op != S_SHAPE && x->op != S_STRIDE) || c->p->n[x->args[0]].op != S_PARAM)
		return false;
	int arr = (int)c->p->n[x->args[0]].ival;
	struct sunify *u = &c->uni_r[j];
	if (u->op)
		return u->op == x->op && u->param == arr && u->axis == (int)x->ival;
	if (c->b->py_of_rs[j] >= 0 || c->r->params[j].kind == SPK_ARRAY)
		return false;
	/* the source array's counterpart must be bound already */
	*u = (struct sunify){x->op, arr, (int)x->ival};
	trail(c, TR_UNI_R, j, 0, 0);
	sf_add(c->out, SEM_NOTE, "sem.param", x->line, c->r->params[j].line, NULL, NULL,
	       "%s of the Rust is %s.%s[%d] of the source", c->r->params[j].name, c->p->params[arr].name,
	       x->op == S_SHAPE ? "shape" : "stride", (int)x->ival);
	return true;
}

/* ---- loops ---- */

bool scmp_loops(struct scmp *c, int lp, int lr)
{
	if (lp < 0 || lr < 0)
		return lp == lr;
	if (c->loop_r[lp] == lr)
		return true;
	if (c->loop_r[lp] >= 0 || c->loop_p[lr] >= 0)
		return false;
	const struct sloop *a = &c->p->loops[lp], *b = &c->r->loops[lr];
	struct smark m = scmp_mark(c);
	c->loop_r[lp] = lr;
	c->loop_p[lr] = lp;
	trail(c, TR_LOOP, lp, lr, 0);
	if (scmp_eq(c, a->lo, b->lo) && scmp_eq(c, a->hi, b->hi) && scmp_eq(c, a->step, b->step))
		return true;
	scmp_undo(c, m);
	c->dp = a->lo;
	c->dr = b->lo;
	c->dwhat = "loop bounds";
	c->dlp = lp;
	c->dlr = lr;
	return false;
}

static bool slot_eq(struct scmp *c, int lp, int sp, int lr, int sr)
{
	if (!scmp_loops(c, lp, lr))
		return false;
	if ((size_t)sp >= c->p->loops[lp].nslots || (size_t)sr >= c->r->loops[lr].nslots)
		return false;
	int *map = c->slot_r[lp];
	if (map[sp] == sr)
		return true;
	if (map[sp] >= 0)
		return false;
	for (size_t k = 0; k < c->p->loops[lp].nslots; k++)
		if (map[k] == sr)
			return false;
	struct smark m = scmp_mark(c);
	map[sp] = sr;
	trail(c, TR_SLOT, lp, sp, 0);
	const struct sloop *a = &c->p->loops[lp], *b = &c->r->loops[lr];
	if (scmp_eq(c, a->init[sp], b->init[sr]) && scmp_eq(c, a->update[sp], b->update[sr]))
		return true;
	/* keep the difference found inside the update for the message */
	sid dp = c->dp, dr = c->dr;
	const char *dw = c->dwhat;
	scmp_undo(c, m);
	c->dp = dp;
	c->dr = dr;
	c->dwhat = dw;
	return false;
}

/* ---- operands ---- */

static bool is_comm(const struct snode *x)
{
	switch (x->op) {
	case S_FADD:
	case S_FMUL:
	case S_FMAX:
	case S_FMIN:
	case S_IMIN:
	case S_IMAX:
	case S_AND:
	case S_OR:
	case S_XOR:
	case S_MONO:
		return true;
	case S_IBIT:
		return x->attr == '&' || x->attr == '|' || x->attr == '^';
	case S_FCMP:
		return x->attr == FC_EQ || x->attr == FC_NE;
	default:
		return false;
	}
}

/* args as a multiset: a[i] matched to some unused b[j] */
static bool match_set(struct scmp *c, const sid *a, const sid *b, int n, int i, unsigned used)
{
	if (i == n)
		return true;
	/* a trial that fails leaves no difference behind */
	sid dp = c->dp, dr = c->dr;
	const char *dw = c->dwhat;
	for (int j = 0; j < n; j++) {
		if (used & (1u << j))
			continue;
		struct smark m = scmp_mark(c);
		if (scmp_eq(c, a[i], b[j]) && match_set(c, a, b, n, i + 1, used | (1u << j)))
			return true;
		scmp_undo(c, m);
		c->dp = dp;
		c->dr = dr;
		c->dwhat = dw;
	}
	return false;
}

static bool args_set(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	if (x->nargs != y->nargs || x->nargs > 16)
		return false;
	sid dp = 0, dr = 0;
	const char *dw = NULL;
	/* in order first: its difference is the one to report */
	struct smark m = scmp_mark(c);
	bool ok = true;
	for (int i = 0; i < x->nargs && ok; i++)
		ok = scmp_eq(c, x->args[i], y->args[i]);
	if (ok)
		return true;
	dp = c->dp;
	dr = c->dr;
	dw = c->dwhat;
	scmp_undo(c, m);
	scmp_clear_diff(c);
	if (match_set(c, x->args, y->args, x->nargs, 0, 0))
		return true;
	c->dp = dp;
	c->dr = dr;
	c->dwhat = dw;
	if (x->nargs == 2) {
		/* one operand matches the other side's: the difference is in the rest */
		sid a[2] = {x->args[0], x->args[1]}, b[2] = {y->args[0], y->args[1]};
		static const int pairs[4][4] = {{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 0}};
		for (int k = 0; k < 4; k++) {
			struct smark m2 = scmp_mark(c);
			bool one = scmp_eq(c, a[pairs[k][0]], b[pairs[k][1]]);
			scmp_undo(c, m2);
			if (!one)
				continue;
			sid sp = c->dp, sr = c->dr;
			const char *sw = c->dwhat;
			scmp_clear_diff(c);
			bool other = scmp_eq(c, a[pairs[k][2]], b[pairs[k][3]]);
			scmp_undo(c, m2);
			if (!other)
				return false; /* its difference is recorded */
			c->dp = sp;
			c->dr = sr;
			c->dwhat = sw;
		}
	}
	return false;
}

static bool args_ordered(struct scmp *c, sid p, sid r, int from)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	if (x->nargs != y->nargs)
		return false;
	struct smark m = scmp_mark(c);
	for (int i = from; i < x->nargs; i++) {
		if (scmp_eq(c, x->args[i], y->args[i]))
			continue;
		sid dp = c->dp, dr = c->dr;
		const char *dw = c->dwhat;
		if (x->nargs - from >= 2 && x->nargs - from <= 8) {
			/* the same operands in another order? */
			scmp_undo(c, m);
			scmp_clear_diff(c);
			bool perm = match_set(c, x->args + from, y->args + from, x->nargs - from, 0, 0);
			scmp_undo(c, m);
			if (perm) {
				c->dp = p;
				c->dr = r;
				c->dwhat = x->op == S_LOAD ? "index order" : "operand order";
				return false;
			}
		}
		c->dp = dp;
		c->dr = dr;
		c->dwhat = dw;
		return false;
	}
	return true;
}

static bool dims_eq(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	bool ok = x->rank == y->rank;
	for (int i = 0; ok && i < x->rank; i++)
		ok = scmp_eq(c, x->dims[i], y->dims[i]);
	if (!ok) {
		c->dp = p;
		c->dr = r;
		c->dwhat = "tile shape";
	}
	return ok;
}

static bool poly_eq(struct scmp *c, sid p, sid r)
{
	return args_set(c, p, r);
}

static bool icmp_eq(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	if (x->attr != y->attr)
		return false;
	struct smark m = scmp_mark(c);
	if (scmp_eq(c, x->args[0], y->args[0]))
		return true;
	if (x->attr == IC_LT0) {
		c->dp = p;
		c->dr = r;
		c->dwhat = "comparison";
		return false;
	}
	sid dp = c->dp, dr = c->dr;
	const char *dw = c->dwhat;
	scmp_undo(c, m);
	scmp_clear_diff(c);
	/* p == 0 and -p == 0 are one condition */
	sid neg = ic_neg(c->r, y->args[0]);
	if (scmp_eq(c, x->args[0], neg))
		return true;
	(void)dp;
	(void)dr;
	(void)dw;
	c->dp = p;
	c->dr = r;
	c->dwhat = "comparison";
	return false;
}

/* ---- the comparison ---- */

static bool noop_convert(const struct scmp *c, const struct sgraph *g, const struct snode *x)
{
	int from = g->n[x->args[0]].dt;
	return from == x->dt || (g == c->p ? scmp_same_dt(c, from, x->dt) : scmp_same_dt(c, x->dt, from)) ||
	       x->dt == SDT_NONE;
}

static bool same_op(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	switch (x->op) {
	case S_INT:
	case S_BOOL:
		return x->ival == y->ival;
	case S_FLOAT:
		return float_eq(x->fval, y->fval, x->dt == SDT_F64 && y->dt == SDT_F64 ? SDT_F64 : SDT_F32);
	case S_UNDEF:
		return true;
	case S_SHAPE:
	case S_STRIDE:
		return x->ival == y->ival && scmp_eq(c, x->args[0], y->args[0]);
	case S_BID:
	case S_NBLOCKS:
		return x->ival == y->ival;
	case S_IV:
		return scmp_loops(c, (int)x->ival, (int)y->ival);
	case S_CARRY:
	case S_LOOPRES:
		return slot_eq(c, (int)x->ival, x->attr, (int)y->ival, y->attr);
	case S_IOTA:
		return dims_eq(c, p, r);
	case S_POLY:
		return poly_eq(c, p, r);
	case S_MONO:
		return x->ival == y->ival && args_set(c, p, r);
	case S_ICMP:
		return icmp_eq(c, p, r);
	case S_OPAQUE:
		return x->name && y->name && !strcmp(x->name, y->name) && args_ordered(c, p, r, 0);
	default:
		break;
	}
	if (x->attr != y->attr && x->op != S_LOAD)
		return false;
	if ((x->op == S_PERMUTE || x->op == S_REDUCE) && x->ival != y->ival)
		return false;
	if (x->op == S_RESHAPE || x->op == S_BROADCAST || x->op == S_LOAD || x->op == S_PERMUTE ||
	    x->op == S_REDUCE || x->op == S_CONVERT) {
		if (!dims_eq(c, p, r))
			return false;
	}
	if (x->op == S_LOAD) {
		/* the array, then the index (a padding difference is settled by the caller) */
		if (!scmp_eq(c, x->args[0], y->args[0]))
			return false;
		return args_ordered(c, p, r, 1);
	}
	if (x->op == S_GATHER)
		return false; /* the caller compares gathers */
	return is_comm(x) ? args_set(c, p, r) : args_ordered(c, p, r, 0);
}

static const char *what_of(const struct snode *x, const struct snode *y)
{
	if ((x->op == S_CONVERT) != (y->op == S_CONVERT))
		return "conversion";
	if (x->op != y->op)
		return "operation";
	switch (x->op) {
	case S_INT:
	case S_FLOAT:
	case S_BOOL:
		return "constant";
	case S_REDUCE:
		return x->attr != y->attr ? "reduction" : x->ival != y->ival ? "reduction axis" : "shape";
	case S_PERMUTE:
		return "permutation";
	case S_IOTA:
		return "shape";
	case S_LOAD:
		return "load";
	case S_ICMP:
	case S_FCMP:
		return "comparison";
	case S_CONVERT:
		return "element type";
	case S_PARAM:
		return "parameter";
	case S_BID:
	case S_NBLOCKS:
		return "grid axis";
	case S_IV:
		return "loop";
	case S_CARRY:
	case S_LOOPRES:
		return "loop-carried value";
	default:
		return "value";
	}
}

static bool gather_eq(struct scmp *c, sid p, sid r);

static bool eq(struct scmp *c, sid p, sid r)
{
	if (!p || !r)
		return p == r;
	uint8_t mv = memo_get(c, p, r);
	/* a known difference is compared again only to say where it is */
	if (mv == 1 || (mv == 2 && (c->dp || c->dr)))
		return mv == 1;
	if (c->depth > 300) {
		scmp_diff(c, p, r, "value");
		return false;
	}
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	/* converts that change nothing here */
	if (x->op == S_CONVERT && noop_convert(c, c->p, x) && !(y->op == S_CONVERT && y->dt == x->dt))
		return eq(c, x->args[0], r);
	if (y->op == S_CONVERT && noop_convert(c, c->r, y) && !(x->op == S_CONVERT && y->dt == x->dt))
		return eq(c, p, y->args[0]);
	c->depth++;
	bool ok;
	double va, vb;
	if (x->op == S_PARAM) {
		ok = param_eq(c, p, r);
	} else if (y->op == S_PARAM && x->op != S_PARAM) {
		ok = param_eq_r(c, p, r);
	} else if (x->op != y->op) {
		ok = lit_value(x, &va) && lit_value(y, &vb) && float_eq(va, vb, SDT_F32);
	} else if (x->op == S_GATHER) {
		ok = gather_eq(c, p, r);
	} else {
		bool dt = x->op == S_INT || sdt_is_int(x->dt) || scmp_same_dt(c, x->dt, y->dt);
		ok = same_op(c, p, r) && dt;
		if (!dt && !c->dp && !c->dr)
			scmp_diff(c, p, r, "element type");
		if (ok && x->op == S_LOAD && x->attr != y->attr)
			ok = sem_pad_eq(c, p, r);
	}
	c->depth--;
	x = &c->p->n[p];
	y = &c->r->n[r];
	if (ok) {
		if (!shint_eq(&x->h, &y->h))
			cmp_hints(c, x, y);
		if (x->flags != y->flags)
			cmp_flags(c, x, y);
	} else {
		scmp_diff(c, p, r, what_of(x, y));
	}
	memo_put(c, p, r, ok ? 1 : 2);
	return ok;
}

bool scmp_eq(struct scmp *c, sid p, sid r)
{
	struct smark m = scmp_mark(c);
	bool ok = eq(c, p, r);
	if (!ok) {
		sid dp = c->dp, dr = c->dr;
		const char *dw = c->dwhat;
		scmp_undo(c, m);
		c->dp = dp;
		c->dr = dr;
		c->dwhat = dw;
		/* the failure itself is worth remembering */
		memo_put(c, p, r, 2);
	}
	return ok;
}

/* ---- gathers ---- */

static bool gather_eq(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	if (!scmp_eq(c, x->args[0], y->args[0]))
		return false;
	const char *an = c->p->n[x->args[0]].name;
	char what[96];
	snprintf(what, sizeof(what), "load of %s", an ? an : "an array");
	int rank = c->p->params[c->p->n[x->args[0]].ival].rank;
	if (!sg_cmp_offset(c, x->args[0], x->args[1], y->args[1], rank, x->line, y->line, what))
		return false;
	if (!sg_cmp_mask(c, x->args[2], y->args[2], x->line, y->line, what))
		return false;
	return sem_pad_eq(c, p, r);
}
