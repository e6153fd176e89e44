/* B's semantic-layout gate (pipeline.md §6): the multiset of strides=[..],
 * dim_map=[..] and tile=(..) attributes, with every stride other than 1
 * written as '?', must be the same in the reference and generated IR. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct attrs {
	char **v;
	size_t n, cap;
};

static void attrs_add(struct attrs *a, char *s)
{
	a->v = xgrow(a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = s;
}

static void attrs_free(struct attrs *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The canonical form of one attribute value: whitespace dropped, strides
 * entries other than "1" replaced by '?'. */
static char *canonical(const char *key, const char *body, size_t n, char open, char close)
{
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "%s=%c", key, open);
	bool strides = strcmp(key, "strides") == 0;
	size_t i = 0;
	bool first = true;
	while (i < n) {
		size_t j = i;
		while (j < n && body[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && isspace((unsigned char)body[a]))
			a++;
		while (b > a && isspace((unsigned char)body[b - 1]))
			b--;
		if (!first)
			sb_addc(&sb, ',');
		first = false;
		if (strides && !(b - a == 1 && body[a] == '1'))
			sb_addc(&sb, '?');
		else
			for (size_t k = a; k < b; k++)
				if (!isspace((unsigned char)body[k]))
					sb_addc(&sb, body[k]);
		i = j + 1;
	}
	sb_addc(&sb, close);
	return sb_detach(&sb);
}

static void extract(const char *text, struct attrs *out)
{
	static const struct {
		const char *key;
		char open, close;
	} keys[] = {{"strides", '[', ']'}, {"dim_map", '[', ']'}, {"tile", '(', ')'}};
	for (const char *p = text; p && *p; p++) {
		for (size_t k = 0; k < TP_ARRAY_LEN(keys); k++) {
			size_t kl = strlen(keys[k].key);
			if (strncmp(p, keys[k].key, kl) != 0)
				continue;
			if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue;
			const char *q = p + kl;
			while (*q == ' ')
				q++;
			if (*q != '=')
				continue;
			q++;
			while (*q == ' ')
				q++;
			if (*q != keys[k].open)
				continue;
			const char *end = strchr(q + 1, keys[k].close);
			const char *nl = strchr(q + 1, '\n');
			if (!end || (nl && nl < end))
				continue;
			attrs_add(out, canonical(keys[k].key, q + 1, (size_t)(end - q - 1),
						 keys[k].open, keys[k].close));
			p = end;
			break;
		}
	}
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool layout_attrs_equal(const char *ref, const char *gen, char **diff, size_t *nref,
			size_t *ngen)
{
	struct attrs r = {0}, g = {0};
	extract(ref, &r);
	extract(gen, &g);
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), cmp);
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), cmp);
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, j = 0, shown = 0;
	while (i < r.n || j < g.n) {
		int c = i >= r.n ? 1 : j >= g.n ? -1 : strcmp(r.v[i], g.v[j]);
		if (c == 0) {
			i++, j++;
			continue;
		}
		if (shown++ < 4)
			sb_printf(&sb, "%s%c%s", sb.len ? ", " : "", c < 0 ? '-' : '+',
				  c < 0 ? r.v[i] : g.v[j]);
		if (c < 0)
			i++;
		else
			j++;
	}
	if (shown > 4)
		sb_printf(&sb, ", ... (%zu differences)", shown);
	if (nref)
		*nref = r.n;
	if (ngen)
		*ngen = g.n;
	attrs_free(&r);
	attrs_free(&g);
	bool equal = shown == 0;
	if (diff)
		*diff = equal ? (sb_free(&sb), NULL) : sb_detach(&sb);
	else
		sb_free(&sb);
	return equal;
}
