/* The [batch] and [slurm] settings (docs/batch.md, "Configuration"): their
 * check for the session, which every command opens, so that a bad value
 * is an error naming file and line wherever it is read; and reading them. */
#include "engine/batch/batch.h"

#include <stdlib.h>
#include <string.h>

const char batch_settings_hint[] = "a batch setting: batch.executor, batch.jobs, slurm.partition, "
				   "slurm.account, slurm.qos, slurm.time, slurm.gres, "
				   "slurm.sbatch_args, slurm.tileport, slurm.poll, slurm.probe, "
				   "slurm.probe_timeout, slurm.probe_grace";

enum kind { WORDS, CHOICE, COUNT, SECONDS, YES_NO };

static const struct {
	const char *key;
	enum kind kind;
} keys[] = {
	{"batch.executor", CHOICE},    {"batch.jobs", COUNT},        {"slurm.partition", WORDS},
	{"slurm.account", WORDS},      {"slurm.qos", WORDS},         {"slurm.time", WORDS},
	{"slurm.gres", WORDS},         {"slurm.sbatch_args", WORDS}, {"slurm.tileport", WORDS},
	{"slurm.poll", SECONDS},       {"slurm.probe", YES_NO},      {"slurm.probe_timeout", SECONDS},
	{"slurm.probe_grace", SECONDS},
};

static int yes_no(const char *v)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		return 0;
	return -1;
}

static bool seconds(const char *v, int64_t *ms)
{
	char *end;
	double s = strtod(v, &end);
	if (end == v || *end || !(s > 0) || s > 1e7)
		return false;
	*ms = (int64_t)(s * 1000);
	return true;
}

static bool count(const char *v, int *n)
{
	char *end;
	long x = strtol(v, &end, 10);
	if (end == v || *end || x < 1 || x > 100000)
		return false;
	*n = (int)x;
	return true;
}

int batch_setting_check(const struct config_entry *e, struct tp_err *err)
{
	for (size_t i = 0; e->key && i < TP_ARRAY_LEN(keys); i++) {
		if (strcmp(e->key, keys[i].key) != 0)
			continue;
		const char *v = e->value;
		int64_t ms;
		int n;
		const char *want = NULL;
		switch (keys[i].kind) {
		case CHOICE:
			if (strcmp(v, "local") && strcmp(v, "slurm"))
				want = "local or slurm";
			break;
		case COUNT:
			if (!count(v, &n))
				want = "a number of runs, 1 or more";
			break;
		case SECONDS:
			if (!seconds(v, &ms))
				want = "a number of seconds";
			break;
		case YES_NO:
			if (yes_no(v) < 0)
				want = "yes or no";
			break;
		case WORDS:
			if (!*v)
				want = "a value";
			break;
		}
		if (!want)
			return 1;
		tp_err_set(err, TP_EXIT_USAGE, "%s = '%s': expected %s", e->key, v, want);
		return -1;
	}
	return 0;
}

void batch_config_read(const struct config *c, struct batch_config *out)
{
	memset(out, 0, sizeof(*out));
	const char *ex = config_get(c, "batch.executor");
	out->executor = !ex ? -1 : !strcmp(ex, "slurm") ? BATCH_SLURM : BATCH_LOCAL;
	const char *jobs = config_get(c, "batch.jobs");
	if (jobs)
		count(jobs, &out->jobs);
	struct batch_slurm *s = &out->slurm;
	s->partition = (char *)config_get(c, "slurm.partition");
	s->account = (char *)config_get(c, "slurm.account");
	s->qos = (char *)config_get(c, "slurm.qos");
	s->time = (char *)config_get(c, "slurm.time");
	s->gres = (char *)config_get(c, "slurm.gres");
	s->tileport = (char *)config_get(c, "slurm.tileport");
	const char *args = config_get(c, "slurm.sbatch_args");
	size_t n;
	s->sbatch_args = str_split(args ? args : "", ' ', false, &n);
	const char *v;
	if ((v = config_get(c, "slurm.poll")))
		seconds(v, &s->poll_ms);
	if ((v = config_get(c, "slurm.probe_timeout")))
		seconds(v, &s->probe_timeout_ms);
	if ((v = config_get(c, "slurm.probe_grace")))
		seconds(v, &s->probe_grace_ms);
	v = config_get(c, "slurm.probe");
	s->probe = !v || yes_no(v) != 0;
	for (size_t i = 0; i < c->n && !out->slurm_configured; i++)
		out->slurm_configured = c->v[i].key && str_starts(c->v[i].key, "slurm.");
}

void batch_config_free(struct batch_config *c)
{
	strv_free(c->slurm.sbatch_args);
	memset(c, 0, sizeof(*c));
}
