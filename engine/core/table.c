#include "engine/core/table.h"

#include "engine/base/files.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

/* cJSON reports no source positions. To name the line of each element of a
 * top-level array ("stages", "routes") the raw text is scanned lexically:
 * only strings and nesting are tracked; cJSON still does all the parsing. */
static int *element_lines(const char *text, const char *key, size_t *n)
{
	int *lines = NULL;
	size_t cap = 0, cnt = 0;
	int line = 1, depth = 0;
	bool in_str = false, esc = false, capturing = false, expect = false;
	const char *str_start = NULL, *last_str = NULL;
	size_t last_len = 0;
	bool want_value = false; /* the matching key's ':' was seen */
	for (const char *p = text; *p; p++) {
		char c = *p;
		if (c == '\n')
			line++;
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"') {
				in_str = false;
				last_str = str_start;
				last_len = (size_t)(p - str_start);
			}
			continue;
		}
		if (capturing && depth == 2 && expect && c != ' ' && c != '\t' && c != '\n' &&
		    c != '\r' && c != ',' && c != ']') {
			lines = xgrow(lines, &cap, cnt + 1, sizeof(*lines));
			lines[cnt++] = line;
			expect = false;
		}
		switch (c) {
		case '"':
			in_str = true;
			str_start = p + 1;
			break;
		case ':':
			want_value = depth == 1 && last_str && last_len == strlen(key) &&
				     memcmp(last_str, key, last_len) == 0;
			break;
		case '[':
		case '{':
			depth++;
			if (c == '[' && want_value && depth == 2) {
				capturing = true;
				expect = true;
			}
			want_value = false;
			break;
		case ']':
		case '}':
			depth--;
			if (depth < 2)
				capturing = false;
			break;
		case ',':
			if (capturing && depth == 2)
				expect = true;
			want_value = false;
			break;
		default:
			break;
		}
	}
	*n = cnt;
	return lines;
}

struct ctx {
	const char *path;
	struct tp_err *err;
	bool failed;
};

static bool fail(struct ctx *c, int line, const char *fmt, ...) TP_PRINTF(3, 4);
static bool fail(struct ctx *c, int line, const char *fmt, ...)
{
	if (c->failed)
		return false;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(c->err, TP_EXIT_USAGE, "%s:%d: %s", c->path, line, msg);
	c->failed = true;
	return false;
}

static bool letter_ok(const char *s)
{
	return s && stage_letter_ok(s[0]) && s[1] == '\0';
}

/* A NULL-terminated string vector from a JSON array of strings. */
static char **strv_from(struct ctx *c, int line, const cJSON *arr, const char *what, bool required)
{
	if (!arr) {
		if (required)
			fail(c, line, "missing '%s' (expected a list of strings)", what);
		return xcalloc(1, sizeof(char *));
	}
	if (!cJSON_IsArray(arr)) {
		fail(c, line, "'%s' must be a list of strings", what);
		return xcalloc(1, sizeof(char *));
	}
	int n = cJSON_GetArraySize(arr);
	char **v = xcalloc((size_t)n + 1, sizeof(*v));
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
	{
		if (!cJSON_IsString(it)) {
			fail(c, line, "'%s' must be a list of strings", what);
			break;
		}
		v[i++] = xstrdup(it->valuestring);
	}
	return v;
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int jint(struct ctx *c, int line, const cJSON *o, const char *k, int def, int min)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!v)
		return def;
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)v->valueint || v->valueint < min) {
		fail(c, line, "'%s' must be an integer >= %d", k, min);
		return def;
	}
	return v->valueint;
}

static bool jbool(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static char *jdup(const cJSON *o, const char *k)
{
	const char *s = jstr(o, k);
	return s ? xstrdup(s) : NULL;
}

static void load_owner(struct ctx *c, struct stage_def *s, const cJSON *own)
{
	if (!own)
		return;
	if (!cJSON_IsObject(own)) {
		fail(c, s->line, "stage %c: 'owner' must be an object", s->letter);
		return;
	}
	s->owner_file = jdup(own, "file");
	s->owner_missing = jdup(own, "missing");
	if (!s->owner_file)
		fail(c, s->line, "stage %c: 'owner' needs a 'file'", s->letter);
	const cJSON *keys = cJSON_GetObjectItemCaseSensitive(own, "keys");
	if (keys && !cJSON_IsObject(keys)) {
		fail(c, s->line, "stage %c: owner 'keys' must be an object of verdict -> {key, classes}",
		     s->letter);
		return;
	}
	const cJSON *k;
	cJSON_ArrayForEach(k, keys)
	{
		if (!cJSON_IsObject(k)) {
			fail(c, s->line, "stage %c: owner key for %s must be an object", s->letter, k->string);
			return;
		}
		s->owner_keys = xrealloc(s->owner_keys, (s->nowner_keys + 1) * sizeof(*s->owner_keys));
		struct owner_key *ok = &s->owner_keys[s->nowner_keys++];
		ok->verdict = xstrdup(k->string);
		ok->key = jdup(k, "key");
		ok->classes = strv_from(c, s->line, cJSON_GetObjectItemCaseSensitive(k, "classes"),
					"owner classes", true);
		if (!ok->key)
			fail(c, s->line, "stage %c: owner key for %s needs 'key'", s->letter, ok->verdict);
		if (!strv_has(s->verdicts, ok->verdict))
			fail(c, s->line, "stage %c: owner key for unknown verdict '%s'", s->letter,
			     ok->verdict);
	}
	if (s->owner_missing) {
		bool known = false;
		for (size_t i = 0; i < s->nowner_keys; i++)
			known |= strv_has(s->owner_keys[i].classes, s->owner_missing);
		if (!known)
			fail(c, s->line, "stage %c: owner 'missing' class '%s' is not a class of any key",
			     s->letter, s->owner_missing);
	}
}

static void load_stage(struct ctx *c, struct table *t, struct stage_def *s, const cJSON *o, int line)
{
	s->line = line;
	const char *letter = jstr(o, "letter");
	if (!letter_ok(letter)) {
		fail(c, line, "stage needs a 'letter' (one capital letter)");
		return;
	}
	s->letter = letter[0];
	for (size_t i = 0; i < t->nstages; i++)
		if (&t->stages[i] != s && t->stages[i].letter == s->letter)
			fail(c, line, "duplicate stage %c (first defined at line %d)", s->letter,
			     t->stages[i].line);
	s->name = jdup(o, "name");
	s->agent = jdup(o, "agent");
	s->verdicts = strv_from(c, line, cJSON_GetObjectItemCaseSensitive(o, "verdicts"), "verdicts", true);
	s->success = strv_from(c, line, cJSON_GetObjectItemCaseSensitive(o, "success"), "success", true);
	if (!s->verdicts[0])
		fail(c, line, "stage %c: 'verdicts' is empty", s->letter);
	for (size_t i = 0; s->success[i]; i++)
		if (!strv_has(s->verdicts, s->success[i]))
			fail(c, line, "stage %c: success verdict '%s' is not in its verdicts", s->letter,
			     s->success[i]);
	if (strv_has(s->verdicts, "DEFERRED"))
		fail(c, line, "stage %c: DEFERRED is implied by 'deferrable' and must not be listed",
		     s->letter);
	s->cap = jint(c, line, o, "cap", 1, 1);
	s->timeout_s = jint(c, line, o, "timeout_s", 3600, 1);
	s->idle_timeout_s = jint(c, line, o, "idle_timeout_s", 0, 0);
	s->deferrable = jbool(o, "deferrable");
	s->manual = jbool(o, "manual");
	s->validator = jdup(o, "validator");
	s->validator_fail_verdict = jdup(o, "validator_fail_verdict");
	if (s->validator_fail_verdict && !strv_has(s->verdicts, s->validator_fail_verdict))
		fail(c, line, "stage %c: unknown validator_fail_verdict '%s'", s->letter,
		     s->validator_fail_verdict);
	s->verdict_file = jdup(o, "verdict_file");
	load_owner(c, s, cJSON_GetObjectItemCaseSensitive(o, "owner"));
	const cJSON *nz = cJSON_GetObjectItemCaseSensitive(o, "gate_allow_nonzero"), *it;
	if (nz && !cJSON_IsArray(nz)) {
		fail(c, line, "stage %c: 'gate_allow_nonzero' must be a list", s->letter);
		nz = NULL;
	}
	cJSON_ArrayForEach(it, nz)
	{
		const char *v = jstr(it, "verdict"), *cmd = jstr(it, "command");
		if (!v || !cmd || !strv_has(s->verdicts, v)) {
			fail(c, line, "stage %c: gate_allow_nonzero entries need a known 'verdict' and a "
				      "'command'", s->letter);
			break;
		}
		struct gate_nonzero g = {xstrdup(v), xstrdup(cmd), {0}, 0};
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(it, "exits"), *e;
		if (ex && (!cJSON_IsArray(ex) || cJSON_GetArraySize(ex) > 4))
			fail(c, line, "stage %c: gate_allow_nonzero 'exits' must be a list of at most 4 codes",
			     s->letter);
		else
			cJSON_ArrayForEach(e, ex)
			{
				if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 255) {
					fail(c, line, "stage %c: gate_allow_nonzero 'exits' must be codes 1 to 255",
					     s->letter);
					break;
				}
				g.exits[g.nexits++] = (int)e->valuedouble;
			}
		s->nonzero = xrealloc(s->nonzero, (s->nnonzero + 1) * sizeof(*s->nonzero));
		s->nonzero[s->nnonzero++] = g;
	}
	s->step0 = strv_from(c, line, cJSON_GetObjectItemCaseSensitive(o, "step0"), "step0", false);
	s->prior = strv_from(c, line, cJSON_GetObjectItemCaseSensitive(o, "prior"), "prior", false);
	s->artifacts = strv_from(c, line, cJSON_GetObjectItemCaseSensitive(o, "artifacts"), "artifacts",
				 false);
}

static void parse_action(struct ctx *c, struct route_row *r, const char *a)
{
	if (!a) {
		fail(c, r->line, "route needs an 'action'");
	} else if (strcmp(a, "STOP") == 0) {
		r->action = ROUTE_STOP;
	} else if (strcmp(a, "PIPELINE_COMPLETE") == 0) {
		r->action = ROUTE_COMPLETE;
	} else if (strcmp(a, "OFFLINE_COMPLETE") == 0) {
		r->action = ROUTE_OFFLINE_COMPLETE;
	} else if (str_starts(a, "spawn ") && letter_ok(a + 6)) {
		r->action = ROUTE_SPAWN;
		r->target = a[6];
	} else {
		fail(c, r->line, "unknown action '%s' (expected 'spawn X', STOP, PIPELINE_COMPLETE or "
				 "OFFLINE_COMPLETE)", a);
	}
}

static void parse_cond(struct ctx *c, struct route_row *r, const char *s)
{
	struct route_cond rc;
	if (str_starts(s, "not_run ") && letter_ok(s + 8)) {
		rc = (struct route_cond){COND_NOT_RUN, s[8]};
	} else if (str_starts(s, "not_respawned ") && letter_ok(s + 14)) {
		rc = (struct route_cond){COND_NOT_RESPAWNED, s[14]};
	} else {
		fail(c, r->line, "unknown condition '%s' (expected 'not_run X' or 'not_respawned X')", s);
		return;
	}
	r->conds = xrealloc(r->conds, (r->nconds + 1) * sizeof(*r->conds));
	r->conds[r->nconds++] = rc;
}

static bool conds_equal(const struct route_row *a, const struct route_row *b)
{
	if (a->nconds != b->nconds)
		return false;
	for (size_t i = 0; i < a->nconds; i++)
		if (a->conds[i].kind != b->conds[i].kind || a->conds[i].stage != b->conds[i].stage)
			return false;
	return true;
}

static void load_route(struct ctx *c, struct table *t, struct route_row *r, const cJSON *o)
{
	const char *st = jstr(o, "stage");
	if (!letter_ok(st)) {
		fail(c, r->line, "route needs a 'stage' (one capital letter)");
		return;
	}
	r->stage = st[0];
	const struct stage_def *s = table_stage(t, r->stage);
	if (!s) {
		fail(c, r->line, "route for unknown stage %c", r->stage);
		return;
	}
	r->attempt = jint(c, r->line, o, "attempt", 0, 1);
	if (r->attempt > 2)
		fail(c, r->line, "'attempt' is 1 (first run) or 2 (second run or later)");
	const char *mode = jstr(o, "mode");
	if (mode && strcmp(mode, "offline") != 0)
		fail(c, r->line, "unknown mode '%s' (only \"offline\" restricts a row)", mode);
	r->offline_only = mode != NULL;
	r->verdicts = strv_from(c, r->line, cJSON_GetObjectItemCaseSensitive(o, "verdicts"), "verdicts",
				true);
	for (size_t i = 0; r->verdicts[i]; i++) {
		const char *v = r->verdicts[i];
		bool deferred = strcmp(v, "DEFERRED") == 0;
		if (deferred && !s->deferrable)
			fail(c, r->line, "stage %c is not deferrable; verdict DEFERRED cannot occur",
			     r->stage);
		else if (deferred && !r->offline_only)
			fail(c, r->line, "DEFERRED rows must say \"mode\": \"offline\"");
		else if (!deferred && !strv_has(s->verdicts, v))
			fail(c, r->line, "unknown verdict '%s' for stage %c (known: see line %d)", v,
			     r->stage, s->line);
	}
	r->klass = jdup(o, "class");
	if (r->klass) {
		bool ok = false;
		for (size_t i = 0; r->verdicts[i]; i++) {
			const struct owner_key *k = stage_owner_key(s, r->verdicts[i]);
			ok = k && strv_has(k->classes, r->klass);
			if (!ok)
				break;
		}
		if (!ok)
			fail(c, r->line, "class '%s' is not an owner class of stage %c for these verdicts",
			     r->klass, r->stage);
	}
	const cJSON *when = cJSON_GetObjectItemCaseSensitive(o, "when"), *it;
	if (when && !cJSON_IsArray(when)) {
		fail(c, r->line, "'when' must be a list of strings");
		when = NULL;
	}
	cJSON_ArrayForEach(it, when)
	{
		if (!cJSON_IsString(it))
			fail(c, r->line, "'when' must be a list of strings");
		else
			parse_cond(c, r, it->valuestring);
	}
	parse_action(c, r, jstr(o, "action"));
	if (r->action == ROUTE_SPAWN && !table_stage(t, r->target))
		fail(c, r->line, "spawn of unknown stage %c", r->target);
	/* A duplicate is a row that can never fire: same key as an earlier row. */
	for (struct route_row *p = t->routes; p < r && !c->failed; p++) {
		if (p->stage != r->stage || p->attempt != r->attempt || p->offline_only != r->offline_only ||
		    !conds_equal(p, r))
			continue;
		if ((p->klass == NULL) != (r->klass == NULL) || (p->klass && strcmp(p->klass, r->klass)))
			continue;
		for (size_t i = 0; r->verdicts[i]; i++)
			if (strv_has(p->verdicts, r->verdicts[i]))
				fail(c, r->line, "duplicate row: stage %c verdict %s is already routed by the "
						 "row at line %d", r->stage, r->verdicts[i], p->line);
	}
}

static void load_accept(struct ctx *c, struct table *t, const cJSON *acc)
{
	if (!acc)
		return;
	const char *st = jstr(acc, "stage");
	const struct stage_def *s = letter_ok(st) ? table_stage(t, st[0]) : NULL;
	if (!s) {
		fail(c, 1, "final.accept needs a 'stage' of the table (one capital letter)");
		return;
	}
	t->accept_stage = s->letter;
	t->accept_verdicts = strv_from(c, 1, cJSON_GetObjectItemCaseSensitive(acc, "verdicts"),
				       "final.accept.verdicts", true);
	for (size_t i = 0; t->accept_verdicts[i]; i++)
		if (!strv_has(s->verdicts, t->accept_verdicts[i]))
			fail(c, 1, "final.accept: '%s' is not a verdict of stage %c", t->accept_verdicts[i],
			     s->letter);
}

/* Every verdict a stage can return, at every attempt it can reach, must
 * have an unconditional row; and every stage must be reachable. */
static void check_coverage(struct ctx *c, struct table *t)
{
	for (size_t i = 0; i < t->nstages && !c->failed; i++) {
		const struct stage_def *s = &t->stages[i];
		bool reachable = s->letter == t->first || s->manual;
		for (size_t j = 0; j < t->nroutes; j++)
			if (t->routes[j].action == ROUTE_SPAWN && t->routes[j].target == s->letter &&
			    t->routes[j].stage != s->letter)
				reachable = true;
		if (!reachable) {
			fail(c, s->line, "stage %c is unreachable: no row spawns it (mark it \"manual\": true "
					 "if only a person starts it)", s->letter);
			return;
		}
		for (int a = 1; a <= (s->cap > 2 ? 2 : s->cap); a++) {
			for (int off = 0; off <= (s->deferrable ? 1 : 0); off++) {
				char *deferred[] = {"DEFERRED", NULL};
				char **vs = off ? deferred : s->verdicts;
				for (size_t v = 0; vs[v]; v++) {
					const struct owner_key *k = stage_owner_key(s, vs[v]);
					char *none[] = {NULL};
					char **classes = k ? k->classes : none;
					size_t nc = k ? strv_len(k->classes) : 1;
					for (size_t ci = 0; ci < nc; ci++) {
						bool found = false;
						for (size_t j = 0; j < t->nroutes && !found; j++) {
							const struct route_row *r = &t->routes[j];
							found = r->stage == s->letter && !r->nconds &&
								(r->attempt == 0 || r->attempt == a) &&
								(!r->offline_only || off) &&
								strv_has(r->verdicts, vs[v]) &&
								(!r->klass || (classes[ci] &&
									       !strcmp(r->klass, classes[ci])));
						}
						if (!found) {
							fail(c, s->line, "stage %c: no unconditional routing row for "
									 "attempt %d, verdict %s%s%s", s->letter,
							     a, vs[v], classes[ci] ? ", class " : "",
							     classes[ci] ? classes[ci] : "");
							return;
						}
					}
				}
			}
		}
	}
}

char *table_default_path(void)
{
	const char *env = getenv("TILEPORT_TABLE");
	if (env && *env)
		return xstrdup(env);
	return path_join(tp_data_dir(), "skill/pipeline.json");
}

struct table *table_load(const char *path, struct tp_err *err)
{
	size_t len;
	char *text = read_text_file(path, &len, err);
	if (!text)
		return NULL;
	cJSON *root = json_parse_doc(path, text, len, err);
	if (!root) {
		free(text);
		return NULL;
	}
	struct ctx c = {path, err, false};
	struct table *t = xcalloc(1, sizeof(*t));
	t->path = xstrdup(path);
	if (!cJSON_IsObject(root)) {
		fail(&c, 1, "expected a JSON object at the top level");
		goto out;
	}
	t->schema = jint(&c, 1, root, "schema", 0, 1);
	if (t->schema != 1)
		fail(&c, 1, "unsupported schema %d (this tileport reads schema 1)", t->schema);
	t->name = jdup(root, "name");
	const char *first = jstr(root, "first");
	t->first = letter_ok(first) ? first[0] : 'A';

	size_t nsl, nrl;
	int *slines = element_lines(text, "stages", &nsl);
	int *rlines = element_lines(text, "routes", &nrl);
	const cJSON *stages = cJSON_GetObjectItemCaseSensitive(root, "stages");
	const cJSON *routes = cJSON_GetObjectItemCaseSensitive(root, "routes");
	if (!cJSON_IsArray(stages) || !cJSON_GetArraySize(stages))
		fail(&c, 1, "expected a non-empty 'stages' list");
	else if (!cJSON_IsArray(routes) || !cJSON_GetArraySize(routes))
		fail(&c, 1, "expected a non-empty 'routes' list");
	if (!c.failed) {
		t->nstages = (size_t)cJSON_GetArraySize(stages);
		t->stages = xcalloc(t->nstages, sizeof(*t->stages));
		size_t i = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, stages)
		{
			int line = i < nsl ? slines[i] : 1;
			if (!cJSON_IsObject(it))
				fail(&c, line, "each stage must be an object");
			else
				load_stage(&c, t, &t->stages[i], it, line);
			i++;
		}
		if (!table_stage(t, t->first))
			fail(&c, 1, "'first' names unknown stage %c", t->first);
	}
	if (!c.failed) {
		t->nroutes = (size_t)cJSON_GetArraySize(routes);
		t->routes = xcalloc(t->nroutes, sizeof(*t->routes));
		size_t i = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, routes)
		{
			struct route_row *r = &t->routes[i];
			r->index = (int)i + 1;
			r->line = i < nrl ? rlines[i] : 1;
			if (!cJSON_IsObject(it))
				fail(&c, r->line, "each route must be an object");
			else if (!c.failed)
				load_route(&c, t, r, it);
			i++;
		}
	}
	free(slines);
	free(rlines);
	if (!c.failed) {
		const cJSON *gate = cJSON_GetObjectItemCaseSensitive(root, "gate");
		if (gate && !cJSON_IsObject(gate))
			fail(&c, 1, "'gate' must be an object");
		t->repairs_per_letter = jint(&c, 1, gate, "repairs_per_letter", 1, 0);
		const char *mo = jstr(gate, "missing_owner");
		if (mo && strcmp(mo, "stop") != 0 && strcmp(mo, "kernel") != 0)
			fail(&c, 1, "gate.missing_owner is \"stop\" or \"kernel\", not \"%s\"", mo);
		t->missing_owner_kernel = mo && !strcmp(mo, "kernel");
		t->clean_success = strv_from(&c, 1, cJSON_GetObjectItemCaseSensitive(gate, "clean_success"),
					     "gate.clean_success", false);
		t->bad_words = strv_from(&c, 1, cJSON_GetObjectItemCaseSensitive(gate, "bad_words"),
					 "gate.bad_words", false);
		const cJSON *fin = cJSON_GetObjectItemCaseSensitive(root, "final");
		t->final_validator = jdup(fin, "validator");
		load_accept(&c, t, cJSON_GetObjectItemCaseSensitive(fin, "accept"));
		check_coverage(&c, t);
	}
out:
	cJSON_Delete(root);
	free(text);
	if (c.failed) {
		table_free(t);
		return NULL;
	}
	return t;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nstages; i++) {
		struct stage_def *s = &t->stages[i];
		free(s->name);
		free(s->agent);
		strv_free(s->verdicts);
		strv_free(s->success);
		free(s->validator);
		free(s->validator_fail_verdict);
		free(s->verdict_file);
		free(s->owner_file);
		free(s->owner_missing);
		for (size_t k = 0; k < s->nowner_keys; k++) {
			free(s->owner_keys[k].verdict);
			free(s->owner_keys[k].key);
			strv_free(s->owner_keys[k].classes);
		}
		free(s->owner_keys);
		for (size_t k = 0; k < s->nnonzero; k++) {
			free(s->nonzero[k].verdict);
			free(s->nonzero[k].command);
		}
		free(s->nonzero);
		strv_free(s->step0);
		strv_free(s->prior);
		strv_free(s->artifacts);
	}
	free(t->stages);
	for (size_t i = 0; i < t->nroutes; i++) {
		strv_free(t->routes[i].verdicts);
		free(t->routes[i].klass);
		free(t->routes[i].conds);
	}
	free(t->routes);
	strv_free(t->clean_success);
	strv_free(t->bad_words);
	free(t->final_validator);
	strv_free(t->accept_verdicts);
	free(t->name);
	free(t->path);
	free(t);
}

const struct stage_def *table_stage(const struct table *t, char letter)
{
	for (size_t i = 0; i < t->nstages; i++)
		if (t->stages[i].letter == letter)
			return &t->stages[i];
	return NULL;
}

bool stage_has_verdict(const struct stage_def *s, const char *verdict, bool offline)
{
	if (strcmp(verdict, "DEFERRED") == 0)
		return offline && s->deferrable;
	return strv_has(s->verdicts, verdict);
}

bool stage_is_success(const struct stage_def *s, const char *verdict)
{
	return strv_has(s->success, verdict);
}

const struct owner_key *stage_owner_key(const struct stage_def *s, const char *verdict)
{
	for (size_t i = 0; i < s->nowner_keys; i++)
		if (strcmp(s->owner_keys[i].verdict, verdict) == 0)
			return &s->owner_keys[i];
	return NULL;
}

const struct route_row *table_route(const struct table *t, char stage, int attempt,
				    const char *verdict, const char *klass, bool offline,
				    route_cond_fn cond, void *ud)
{
	for (size_t i = 0; i < t->nroutes; i++) {
		const struct route_row *r = &t->routes[i];
		if (r->stage != stage || (r->offline_only && !offline))
			continue;
		if (r->attempt == 1 && attempt != 1)
			continue;
		if (r->attempt == 2 && attempt < 2)
			continue;
		if (!strv_has(r->verdicts, verdict))
			continue;
		if (r->klass && (!klass || strcmp(r->klass, klass) != 0))
			continue;
		bool ok = true;
		for (size_t k = 0; k < r->nconds && ok; k++)
			ok = cond && cond(&r->conds[k], ud);
		if (ok)
			return r;
	}
	return NULL;
}

const char *route_action_name(enum route_action a)
{
	switch (a) {
	case ROUTE_SPAWN:
		return "spawn";
	case ROUTE_STOP:
		return "STOP";
	case ROUTE_COMPLETE:
		return "PIPELINE_COMPLETE";
	case ROUTE_OFFLINE_COMPLETE:
		return "OFFLINE_COMPLETE";
	}
	return "?";
}

void route_row_action_str(const struct route_row *r, char *buf, size_t n)
{
	if (r->action == ROUTE_SPAWN)
		snprintf(buf, n, "spawn %c", r->target);
	else
		snprintf(buf, n, "%s", route_action_name(r->action));
}


static void cond_str(const struct route_row *r, struct sbuf *sb)
{
	for (size_t k = 0; k < r->nconds; k++)
		sb_printf(sb, "%s%s %c", k ? ", " : "",
			  r->conds[k].kind == COND_NOT_RUN ? "not_run" : "not_respawned", r->conds[k].stage);
}

void table_print_text(const struct table *t, FILE *out)
{
	fprintf(out, "pipeline table %s (schema %d)\n\n", t->path, t->schema);
	fprintf(out, "%-5s %-30s %3s  %-8s %s\n", "stage", "name", "cap", "offline", "verdicts (success marked *)");
	for (size_t i = 0; i < t->nstages; i++) {
		const struct stage_def *s = &t->stages[i];
		struct sbuf sb = SBUF_INIT;
		for (size_t v = 0; s->verdicts[v]; v++)
			sb_printf(&sb, "%s%s%s", v ? " " : "", s->verdicts[v],
				  stage_is_success(s, s->verdicts[v]) ? "*" : "");
		fprintf(out, "%-5c %-30s %3d  %-8s %s%s\n", s->letter, s->name ? s->name : "", s->cap,
			s->deferrable ? "defer" : (s->manual ? "manual" : "-"), sb_str(&sb),
			s->manual ? "  (manual only)" : "");
		sb_free(&sb);
	}
	fprintf(out, "\n%3s %5s %-5s %-7s %-8s %-38s %-7s %-30s %s\n", "row", "line", "stage", "attempt",
		"mode", "verdicts", "class", "when", "action");
	for (size_t i = 0; i < t->nroutes; i++) {
		const struct route_row *r = &t->routes[i];
		struct sbuf w = SBUF_INIT;
		char *v = strv_join(r->verdicts, " ");
		cond_str(r, &w);
		char act[32];
		route_row_action_str(r, act, sizeof(act));
		char att[8];
		snprintf(att, sizeof(att), "%s", r->attempt == 0 ? "any" : r->attempt == 1 ? "1" : "2+");
		fprintf(out, "%3d %5d %-5c %-7s %-8s %-38s %-7s %-30s %s\n", r->index, r->line, r->stage, att,
			r->offline_only ? "offline" : "any", v, r->klass ? r->klass : "-",
			w.len ? sb_str(&w) : "-", act);
		free(v);
		sb_free(&w);
	}
	fprintf(out, "\ngate: %d repair retry per letter; a missing owner tag: %s; clean success without a "
		"block: ", t->repairs_per_letter,
		t->missing_owner_kernel ? "kernel route" : "stop (the screen asks)");
	char *clean = strv_join(t->clean_success, ", ");
	fprintf(out, "%s\n", clean);
	free(clean);
}

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

char *table_to_json(const struct table *t)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "path", t->path);
	cJSON_AddNumberToObject(root, "schema", t->schema);
	cJSON *stages = cJSON_AddArrayToObject(root, "stages");
	for (size_t i = 0; i < t->nstages; i++) {
		const struct stage_def *s = &t->stages[i];
		cJSON *o = cJSON_CreateObject();
		char l[2] = {s->letter, 0};
		cJSON_AddStringToObject(o, "letter", l);
		cJSON_AddStringToObject(o, "name", s->name ? s->name : "");
		cJSON_AddItemToObject(o, "verdicts", strv_json(s->verdicts));
		cJSON_AddItemToObject(o, "success", strv_json(s->success));
		cJSON_AddNumberToObject(o, "cap", s->cap);
		cJSON_AddBoolToObject(o, "deferrable", s->deferrable);
		cJSON_AddBoolToObject(o, "manual", s->manual);
		cJSON_AddNumberToObject(o, "line", s->line);
		cJSON_AddItemToArray(stages, o);
	}
	cJSON *routes = cJSON_AddArrayToObject(root, "routes");
	for (size_t i = 0; i < t->nroutes; i++) {
		const struct route_row *r = &t->routes[i];
		cJSON *o = cJSON_CreateObject();
		char l[2] = {r->stage, 0};
		cJSON_AddNumberToObject(o, "row", r->index);
		cJSON_AddNumberToObject(o, "line", r->line);
		cJSON_AddStringToObject(o, "stage", l);
		if (r->attempt)
			cJSON_AddNumberToObject(o, "attempt", r->attempt);
		if (r->offline_only)
			cJSON_AddStringToObject(o, "mode", "offline");
		cJSON_AddItemToObject(o, "verdicts", strv_json(r->verdicts));
		if (r->klass)
			cJSON_AddStringToObject(o, "class", r->klass);
		if (r->nconds) {
			cJSON *w = cJSON_AddArrayToObject(o, "when");
			for (size_t k = 0; k < r->nconds; k++) {
				char *s = xasprintf("%s %c",
						    r->conds[k].kind == COND_NOT_RUN ? "not_run" : "not_respawned",
						    r->conds[k].stage);
				cJSON_AddItemToArray(w, cJSON_CreateString(s));
				free(s);
			}
		}
		char act[32];
		route_row_action_str(r, act, sizeof(act));
		cJSON_AddStringToObject(o, "action", act);
		cJSON_AddItemToArray(routes, o);
	}
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	char *out = xstrdup(s);
	cJSON_free(s);
	return out;
}
