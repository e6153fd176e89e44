/* What a launcher (ffi.rs) passes an entry: for each argument of the
 * entry's call, the tensor descriptor an array comes from, or the shape
 * or stride of a descriptor a scalar carries (`a_d.dim(1)`, `a_d.strides[0]
 * as i32`, or a variable set from one). Read from tokens: launchers call
 * their entry inside macro_rules bodies, which are not expressions. */
#include "engine/sem/sem_ffi.h"

#include <stdlib.h>
#include <string.h>

static bool is(const struct rtok *t, const char *s)
{
	return rt_is(t, s);
}

static bool same(const struct rtok *a, const struct rtok *b)
{
	return a->n == b->n && !memcmp(a->s, b->s, a->n);
}

/* The tokens [b, e) of a let's initialiser for variable v before `before`. */
static bool find_let(const struct rtoks *t, const struct rtok *v, size_t before, size_t *b, size_t *e)
{
	for (size_t i = before; i-- > 1;) {
		if (!is(&t->v[i - 1], "let") || !same(&t->v[i], v))
			continue;
		size_t k = i + 1;
		int d = 0;
		while (k < t->n && !(d == 0 && is(&t->v[k], "=")) && !is(&t->v[k], ";")) {
			if (is(&t->v[k], "<") || is(&t->v[k], "("))
				d++;
			else if (is(&t->v[k], ">") || is(&t->v[k], ")"))
				d--;
			k++;
		}
		if (k >= t->n || !is(&t->v[k], "="))
			return false;
		*b = k + 1;
		d = 0;
		for (k = *b; k < t->n; k++) {
			if (is(&t->v[k], "(") || is(&t->v[k], "[") || is(&t->v[k], "{"))
				d++;
			else if (is(&t->v[k], ")") || is(&t->v[k], "]") || is(&t->v[k], "}"))
				d--;
			else if (d == 0 && is(&t->v[k], ";"))
				break;
		}
		*e = k;
		return true;
	}
	return false;
}

/* Classify the expression [b, e): fills f. depth bounds the variable
 * chasing. */
static void classify(const struct rtoks *t, size_t b, size_t e, size_t at, struct sffi_arg *f, int depth)
{
	while (b < e && (is(&t->v[b], "&") || is(&t->v[b], "*") || is(&t->v[b], "mut") || is(&t->v[b], "unsafe") ||
			 is(&t->v[b], "{")))
		b++;
	while (e > b && (is(&t->v[e - 1], "}")))
		e--;
	if (b >= e)
		return;
	/* X . dim ( N )  /  X . shape [ N ]  /  X . strides [ N ]  [as T] */
	if (e - b >= 6 && t->v[b].kind == RT_IDENT && is(&t->v[b + 1], ".") && t->v[b + 4].kind == RT_INT) {
		bool dim = is(&t->v[b + 2], "dim") && is(&t->v[b + 3], "(");
		bool shp = (is(&t->v[b + 2], "shape") || is(&t->v[b + 2], "strides") || is(&t->v[b + 2], "stride")) &&
			   (is(&t->v[b + 3], "[") || is(&t->v[b + 3], "("));
		if ((dim || shp) && (e - b == 6 || is(&t->v[b + 6], "as"))) {
			f->kind = dim || is(&t->v[b + 2], "shape") ? SFFI_SHAPE : SFFI_STRIDE;
			f->desc = t->v[b].s;
			f->ndesc = t->v[b].n;
			f->axis = (int)strtol(t->v[b + 4].s, NULL, 10);
			return;
		}
	}
	/* X . ptr, inside DevicePointer::from_cu_deviceptr(X.ptr) and the like */
	for (size_t k = b; k + 2 < e; k++)
		if (t->v[k].kind == RT_IDENT && is(&t->v[k + 1], ".") && is(&t->v[k + 2], "ptr")) {
			f->kind = SFFI_ARRAY;
			f->desc = t->v[k].s;
			f->ndesc = t->v[k].n;
			return;
		}
	/* borrow_tensor::<E>(X) */
	for (size_t k = b; k < e; k++)
		if (is(&t->v[k], "borrow_tensor")) {
			for (size_t q = k + 1; q + 1 < e; q++)
				if (is(&t->v[q], "(") && t->v[q + 1].kind == RT_IDENT) {
					f->kind = SFFI_ARRAY;
					f->desc = t->v[q + 1].s;
					f->ndesc = t->v[q + 1].n;
					return;
				}
		}
	/* a variable: chase its let */
	if (e - b == 1 && t->v[b].kind == RT_IDENT && depth < 4) {
		size_t lb, le;
		if (find_let(t, &t->v[b], at, &lb, &le))
			classify(t, lb, le, lb, f, depth + 1);
	}
}

void sem_ffi_read(const char *src, size_t len, struct sffi *out)
{
	memset(out, 0, sizeof(*out));
	out->src = src;
	rs_lex(src, len, &out->toks);
}

void sem_ffi_free(struct sffi *f)
{
	free(f->toks.v);
	memset(f, 0, sizeof(*f));
}

size_t sem_ffi_args(const struct sffi *f, const char *entry, size_t elen, struct sffi_arg *out, size_t max)
{
	const struct rtoks *t = &f->toks;
	for (size_t i = 1; i + 1 < t->n; i++) {
		if (t->v[i].kind != RT_IDENT || t->v[i].n != elen || memcmp(t->v[i].s, entry, elen) ||
		    !is(&t->v[i + 1], "(") || is(&t->v[i - 1], "fn"))
			continue;
		size_t n = 0, b = i + 2;
		int d = 0;
		for (size_t k = i + 2; k < t->n; k++) {
			const struct rtok *x = &t->v[k];
			bool open = is(x, "(") || is(x, "[") || is(x, "{");
			bool close = is(x, ")") || is(x, "]") || is(x, "}");
			if (open)
				d++;
			if ((d == 0 && (is(x, ",") || close)) || (d < 0)) {
				if (k > b && n < max) {
					memset(&out[n], 0, sizeof(out[n]));
					classify(t, b, k, i, &out[n], 0);
					n++;
				}
				b = k + 1;
				if (close && d == 0)
					return n;
			}
			if (close)
				d--;
			if (d < 0)
				return n;
		}
		return n;
	}
	return 0;
}

/* The call of `entry` at token i: the index just past its `)`. */
static size_t call_end(const struct rtoks *t, size_t i)
{
	int d = 0;
	for (size_t k = i + 1; k < t->n; k++) {
		if (is(&t->v[k], "(") || is(&t->v[k], "[") || is(&t->v[k], "{"))
			d++;
		else if (is(&t->v[k], ")") || is(&t->v[k], "]") || is(&t->v[k], "}"))
			if (--d == 0)
				return k + 1;
	}
	return t->n;
}

/* One element of `.generics(vec![...])` as text over the generics'
 * names: `n.to_string()` where generic N is `n` names it, `(n * n)` is
 * "N * N". NULL for anything but integers, names and + - * / % << >>, and
 * for what names no generic (a literal passed as one stays that generic). */
static char *generic_expr(const struct rtoks *t, size_t b, size_t e, const struct sffi_gen *known,
			  const struct rfn *fn)
{
	if (e - b >= 4 && is(&t->v[e - 4], ".") && is(&t->v[e - 3], "to_string"))
		e -= 4;
	if (e - b >= 2 && is(&t->v[b], "(") && is(&t->v[e - 1], ")")) {
		b++;
		e--;
	}
	if (b >= e)
		return NULL;
	struct sbuf sb = SBUF_INIT;
	bool named = false; /* a literal passed as a generic stays the generic */
	for (size_t k = b; k < e; k++) {
		const struct rtok *x = &t->v[k];
		static const char *const ops[] = {"+", "-", "*", "/", "%", "<", ">", "(", ")"};
		bool op = false;
		for (size_t o = 0; o < TP_ARRAY_LEN(ops); o++)
			op |= is(x, ops[o]);
		const char *name = NULL;
		uint32_t nn = 0;
		if (x->kind == RT_IDENT)
			for (size_t g = 0; g < fn->ngenerics && !name; g++)
				if (known[g].n == x->n && !memcmp(known[g].s, x->s, x->n)) {
					name = fn->generics[g].name;
					nn = fn->generics[g].n;
				}
		named |= name != NULL;
		if (name)
			sb_printf(&sb, "%.*s", (int)nn, name);
		else if (x->kind == RT_INT || op)
			sb_printf(&sb, "%.*s%s", (int)x->n, x->s, is(x, "<") || is(x, ">") ? "" : " ");
		else {
			sb_free(&sb);
			return NULL;
		}
		if (name)
			sb_addc(&sb, ' ');
	}
	if (!named) {
		sb_free(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

size_t sem_ffi_generics(const struct sffi *f, const struct rfn *fn, char **out, size_t max)
{
	const struct rtoks *t = &f->toks;
	for (size_t i = 1; i + 1 < t->n; i++) {
		if (t->v[i].kind != RT_IDENT || t->v[i].n != fn->n || memcmp(t->v[i].s, fn->name, fn->n) ||
		    !is(&t->v[i + 1], "(") || is(&t->v[i - 1], "fn"))
			continue;
		size_t k = call_end(t, i);
		while (k < t->n && is(&t->v[k], "}"))
			k++;
		if (k + 6 >= t->n || !is(&t->v[k], ".") || !is(&t->v[k + 1], "generics") ||
		    !is(&t->v[k + 2], "(") || !is(&t->v[k + 3], "vec") || !is(&t->v[k + 4], "!") ||
		    !is(&t->v[k + 5], "["))
			return 0;
		/* the elements, split at the commas of their level */
		size_t bounds[64][2], n = 0, b = k + 6;
		int d = 0;
		for (size_t q = k + 6; q < t->n && n < 64; q++) {
			const struct rtok *x = &t->v[q];
			if (is(x, "(") || is(x, "[") || is(x, "{"))
				d++;
			else if ((is(x, ")") || is(x, "]") || is(x, "}")) && d > 0)
				d--;
			else if (d == 0 && (is(x, ",") || is(x, "]"))) {
				if (q > b) {
					bounds[n][0] = b;
					bounds[n][1] = q;
					n++;
				}
				b = q + 1;
				if (is(x, "]"))
					break;
			}
		}
		if (n != fn->ngenerics)
			return 0;
		/* `n.to_string()`: the launcher's name for a generic */
		struct sffi_gen known[64];
		for (size_t g = 0; g < n; g++) {
			size_t gb = bounds[g][0], ge = bounds[g][1];
			bool plain = ge - gb == 5 && t->v[gb].kind == RT_IDENT && is(&t->v[gb + 1], ".") &&
				     is(&t->v[gb + 2], "to_string");
			known[g] = (struct sffi_gen){plain ? t->v[gb].s : NULL, plain ? t->v[gb].n : 0};
		}
		size_t got = 0;
		for (size_t g = 0; g < n && g < max; g++) {
			out[g] = known[g].s ? NULL : generic_expr(t, bounds[g][0], bounds[g][1], known, fn);
			got = g + 1;
		}
		return got;
	}
	return 0;
}
