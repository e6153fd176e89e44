#include "engine/agents/meter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* List prices as published when this table was written; edit them with
 * price.MODEL lines (docs/agents.md). */
static const struct {
	const char *model;
	double in, out, cache_read, cache_write;
} defaults[] = {
	{"claude-opus-4-5", 5, 25, 0.5, 6.25},
	{"claude-opus-4-1", 15, 75, 1.5, 18.75},
	{"claude-sonnet-4-5", 3, 15, 0.3, 3.75},
	{"claude-sonnet-4", 3, 15, 0.3, 3.75},
	{"claude-haiku-4-5", 1, 5, 0.1, 1.25},
	{"gpt-5", 1.25, 10, 0.125, 1.25},
	{"gpt-5-mini", 0.25, 2, 0.025, 0.25},
	{"gpt-5-codex", 1.25, 10, 0.125, 1.25},
	{"gpt-4.1", 2, 8, 0.5, 2},
	{"gpt-4.1-mini", 0.4, 1.6, 0.1, 0.4},
	{"gpt-4o", 2.5, 10, 1.25, 2.5},
};

static struct price *slot(struct prices *p, const char *model)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].model, model))
			return &p->v[i];
	p->v = xgrow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
	struct price *s = &p->v[p->n++];
	memset(s, 0, sizeof(*s));
	s->model = xstrdup(model);
	return s;
}

/* "in=3 out=15 cache_read=0.3 cache_write=3.75" (commas allowed). */
int price_parse(const char *where, const char *v, struct price *out, struct tp_err *err)
{
	double vals[4] = {NAN, NAN, NAN, NAN};
	static const char *const names[] = {"in", "out", "cache_read", "cache_write"};
	char **words = str_split(v, ' ', false, NULL);
	int rc = 0;
	for (size_t i = 0; words[i] && rc == 0; i++) {
		char *w = words[i];
		size_t len = strlen(w);
		if (len && w[len - 1] == ',')
			w[--len] = '\0';
		if (!len)
			continue;
		char *eq = strchr(w, '=');
		int k = -1;
		for (int j = 0; eq && j < 4; j++)
			if ((size_t)(eq - w) == strlen(names[j]) && !strncmp(w, names[j], strlen(names[j])))
				k = j;
		char *end = NULL;
		double d = eq ? strtod(eq + 1, &end) : NAN;
		if (k < 0 || !end || end == eq + 1 || *end || !isfinite(d) || d < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: expected 'in=USD out=USD [cache_read=USD] "
						       "[cache_write=USD]' (per million tokens), got '%s'", where, w);
			rc = -1;
		} else {
			vals[k] = d;
		}
	}
	strv_free(words);
	if (rc == 0 && (isnan(vals[0]) || isnan(vals[1]))) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: a price needs in= and out= (USD per million tokens)", where);
		rc = -1;
	}
	if (rc == 0) {
		out->in = vals[0];
		out->out = vals[1];
		out->cache_read = isnan(vals[2]) ? vals[0] : vals[2];
		out->cache_write = isnan(vals[3]) ? vals[0] : vals[3];
	}
	return rc;
}

int prices_load(struct prices *p, const struct config *cfg, struct tp_err *err)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < TP_ARRAY_LEN(defaults); i++) {
		struct price *s = slot(p, defaults[i].model);
		s->in = defaults[i].in;
		s->out = defaults[i].out;
		s->cache_read = defaults[i].cache_read;
		s->cache_write = defaults[i].cache_write;
		s->source = "default";
	}
	for (size_t i = 0; cfg && i < cfg->n; i++) {
		const struct config_entry *e = &cfg->v[i];
		if (!e->key || !str_starts(e->key, "price.") || !e->key[6])
			continue;
		char where[512];
		snprintf(where, sizeof(where), "%s:%d: %s", e->file, e->line, e->key);
		struct price tmp = {0};
		if (price_parse(where, e->value, &tmp, err) < 0) {
			prices_free(p);
			return -1;
		}
		struct price *s = slot(p, e->key + 6);
		s->in = tmp.in;
		s->out = tmp.out;
		s->cache_read = tmp.cache_read;
		s->cache_write = tmp.cache_write;
		s->source = e->file;
	}
	return 0;
}

void prices_free(struct prices *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].model);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

const struct price *prices_find(const struct prices *p, const char *model)
{
	if (!model || !*model)
		return NULL;
	const struct price *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t k = strlen(p->v[i].model);
		if (strncmp(model, p->v[i].model, k) != 0 || k <= best_len)
			continue;
		if (model[k] == '\0' || model[k] == '-' || model[k] == '@') {
			best = &p->v[i];
			best_len = k;
		}
	}
	return best;
}

double prices_cost(const struct prices *p, const char *model, long long tokens_in, long long cache_read,
		   long long cache_write, long long tokens_out, bool *known)
{
	const struct price *pr = prices_find(p, model);
	if (known)
		*known = pr != NULL;
	if (!pr)
		return 0;
	long long plain = tokens_in - cache_read - cache_write;
	if (plain < 0)
		plain = 0;
	return ((double)plain * pr->in + (double)cache_read * pr->cache_read +
		(double)cache_write * pr->cache_write + (double)tokens_out * pr->out) / 1e6;
}
