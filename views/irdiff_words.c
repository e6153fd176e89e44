/* The differing parts of a changed row: a longest common subsequence over
 * the two texts' tokens, in which an operand matches an operand that names
 * the same thing (its defining op and result, as the alignment keys say it)
 * and other value names match when their stems agree, so the printer's
 * invented names (%0, %tview_3) do not light up. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "views/irdiff_int.h"

/* Token pairs beyond which a changed row is highlighted whole. */
#define MAX_LCS_CELLS 250000

struct tok {
	uint32_t off, len;
};

static bool word_byte(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '%' || c == '#' || c == '.' || c == '@' || c == '$' ||
	       c >= 0x80;
}

static size_t tokenize(const char *s, struct tok **out)
{
	size_t n = strlen(s), cap = 0, nt = 0;
	*out = NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (s[i] == ' ')
			while (j < n && s[j] == ' ')
				j++;
		else if (word_byte((unsigned char)s[i]))
			while (j < n && word_byte((unsigned char)s[j]))
				j++;
		*out = xgrow(*out, &cap, nt + 1, sizeof(**out));
		(*out)[nt++] = (struct tok){(uint32_t)i, (uint32_t)(j - i)};
		i = j;
	}
	return nt;
}

/* The part of a value name that says what it is: "%tview_3" -> "%tview",
 * "%8" -> "%", "%for#1" -> "%for" (+ "#1" compared as is); arguments keep
 * their numbers, they are the same on both sides. */
static size_t name_stem(const char *s, size_t n, size_t *hash)
{
	*hash = n;
	if (n < 2 || s[0] != '%')
		return n;
	const char *h = memchr(s, '#', n);
	if (h)
		*hash = (size_t)(h - s);
	if (*hash > 4 && !memcmp(s, "%arg", 4)) {
		size_t k = 4;
		while (k < *hash && isdigit((unsigned char)s[k]))
			k++;
		if (k == *hash)
			return *hash;
	}
	size_t e = *hash;
	while (e > 1 && isdigit((unsigned char)s[e - 1]))
		e--;
	while (e > 1 && s[e - 1] == '_')
		e--;
	return e;
}

/* What an operand is, as the alignment keys say it (engine/ir's
 * normaliser): its defining op and result, looking through assumes, or the
 * block argument; constants by their printed name, which spells the value. */
static char *describe(const struct ir_value *v, const struct ir_names *names)
{
	v = irdiff_through_assume(v);
	const struct ir_op *d = ir_value_def(v);
	if (d && d->code == IR_OP_CONSTANT) {
		const char *n = ir_names_get(names, v);
		size_t hash, stem = name_stem(n, strlen(n), &hash);
		return xasprintf("%.*s", (int)stem, n);
	}
	if (d)
		return xasprintf("%s#%u", irdiff_op_name(d), v->index);
	const struct ir_op *owner = ir_arg_owner(v);
	if (!owner || owner->code == IR_OP_ENTRY)
		return xasprintf("arg%u", v->index);
	return xasprintf("%s.a%u", owner->def->name, v->index);
}

/* One side of a changed row: its text, tokens, and its operands' printed
 * names with what they are. */
struct wside {
	const char *s;
	struct tok *t;
	size_t nt;
	size_t nops;
	const char **opname;
	char **opdesc;
};

static void wside_init(struct wside *w, const struct irdiff_side *side, const struct ir_names *names)
{
	memset(w, 0, sizeof(*w));
	w->s = side->text;
	w->nt = tokenize(side->text, &w->t);
	const struct ir_op *op = side->op;
	if (!op || !names)
		return;
	w->nops = op->noperands;
	w->opname = xcalloc(w->nops + 1, sizeof(*w->opname));
	w->opdesc = xcalloc(w->nops + 1, sizeof(*w->opdesc));
	for (size_t i = 0; i < w->nops; i++) {
		w->opname[i] = ir_names_get(names, op->operands[i]);
		w->opdesc[i] = describe(op->operands[i], names);
	}
}

static void wside_free(struct wside *w)
{
	for (size_t i = 0; i < w->nops; i++)
		free(w->opdesc[i]);
	free(w->opdesc);
	free(w->opname);
	free(w->t);
}

static const char *operand_of(const struct wside *w, const struct tok *t)
{
	for (size_t i = 0; i < w->nops; i++)
		if (strlen(w->opname[i]) == t->len && !memcmp(w->opname[i], w->s + t->off, t->len))
			return w->opdesc[i];
	return NULL;
}

/* Tokens alike: operands when they name the same thing, other value names
 * (results, block arguments being declared) when their stems agree; the
 * rest as written. exact: value names as written too. */
static bool tok_eq(const struct wside *a, size_t i, const struct wside *b, size_t j, bool exact)
{
	const struct tok *x = &a->t[i], *y = &b->t[j];
	const char *p = a->s + x->off, *q = b->s + y->off;
	if (x->len == y->len && !memcmp(p, q, x->len))
		return true;
	if (exact || p[0] != '%' || q[0] != '%')
		return false;
	const char *dp = operand_of(a, x), *dq = operand_of(b, y);
	if (dp || dq)
		return dp && dq && !strcmp(dp, dq);
	size_t hp, hq;
	size_t sp = name_stem(p, x->len, &hp), sq = name_stem(q, y->len, &hq);
	return sp == sq && !memcmp(p, q, sp) && x->len - hp == y->len - hq &&
	       !memcmp(p + hp, q + hq, x->len - hp);
}

/* Mark the tokens outside a longest common subsequence; false when none. */
static bool lcs_mark(const struct wside *a, const struct wside *b, bool exact, bool *ca, bool *cb)
{
	size_t na = a->nt, nb = b->nt;
	memset(ca, 1, na);
	memset(cb, 1, nb);
	if ((na + 1) * (nb + 1) > MAX_LCS_CELLS)
		return true;
	size_t w = nb + 1;
	uint16_t *t = xcalloc((na + 1) * w, sizeof(uint16_t));
	for (size_t i = na; i-- > 0;)
		for (size_t j = nb; j-- > 0;)
			t[i * w + j] = tok_eq(a, i, b, j, exact) ? (uint16_t)(t[(i + 1) * w + j + 1] + 1)
				       : t[(i + 1) * w + j] > t[i * w + j + 1] ? t[(i + 1) * w + j]
									  : t[i * w + j + 1];
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		if (tok_eq(a, i, b, j, exact))
			ca[i++] = cb[j++] = false;
		else if (t[(i + 1) * w + j] >= t[i * w + j + 1])
			i++;
		else
			j++;
	}
	free(t);
	for (size_t i = 0; i < na; i++)
		if (ca[i])
			return true;
	for (size_t j = 0; j < nb; j++)
		if (cb[j])
			return true;
	return false;
}

/* Runs of changed tokens as byte spans; blanks between two changed tokens
 * join them. */
static uint16_t make_spans(const char *s, const struct tok *t, size_t nt, const bool *changed,
			   struct irv_span **out)
{
	size_t cap = 0, n = 0;
	*out = NULL;
	for (size_t i = 0; i < nt; i++) {
		if (!changed[i])
			continue;
		size_t j = i;
		for (;;) {
			if (j + 1 < nt && changed[j + 1])
				j++;
			else if (j + 2 < nt && s[t[j + 1].off] == ' ' && changed[j + 2])
				j += 2;
			else
				break;
		}
		size_t k = i, e = j;
		/* a blank that merely went with a changed word is not shown */
		if (k < e && s[t[k].off] == ' ')
			k++;
		if (e > k && s[t[e].off] == ' ')
			e--;
		if (n == UINT16_MAX)
			break;
		*out = xgrow(*out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct irv_span){t[k].off, t[e].off + t[e].len - t[k].off};
		i = j;
	}
	return (uint16_t)n;
}

/* The printed names of an entry's values on one side, computed once. */
static const struct ir_names *names_of(struct irv_pair *p, uint32_t entry, int side)
{
	const struct irdiff_entry *e = &p->r->entries[entry];
	const struct ir_op *op = side ? e->gen : e->ref;
	if (!op)
		return NULL;
	if (!p->names)
		p->names = xcalloc(2 * (p->r->nentries ? p->r->nentries : 1), sizeof(*p->names));
	if (!p->names[2 * entry + (uint32_t)side])
		p->names[2 * entry + (uint32_t)side] = ir_names_compute(op);
	return p->names[2 * entry + (uint32_t)side];
}

void irv_diff_words(struct irv_doc *d, struct irv_item *it, const struct irdiff_row *r)
{
	it->diffed = true;
	if (r->kind != IRDIFF_ROW_CHANGED || !r->ref.text || !r->gen.text)
		return;
	struct irv_pair *p = &d->pairs[it->pair];
	struct wside a, b;
	wside_init(&a, &r->ref, names_of(p, it->entry, 0));
	wside_init(&b, &r->gen, names_of(p, it->entry, 1));
	bool *ca = xcalloc(a.nt + 1, 1), *cb = xcalloc(b.nt + 1, 1);
	/* What the alignment saw differ; failing that, the names as written. */
	if (!lcs_mark(&a, &b, false, ca, cb))
		lcs_mark(&a, &b, true, ca, cb);
	it->nspans[0] = make_spans(a.s, a.t, a.nt, ca, &it->spans[0]);
	it->nspans[1] = make_spans(b.s, b.t, b.nt, cb, &it->spans[1]);
	wside_free(&a);
	wside_free(&b);
	free(ca);
	free(cb);
}

