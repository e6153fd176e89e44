/* What Slurm's commands print, read back: squeue rows, scontrol records,
 * sbatch's job id and its refusals (../shared/reference/slurm.md). */
#include "engine/batch/batch_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void slurm_jobs_free(struct slurm_job *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].state);
		free(v[i].node);
		free(v[i].reason);
		free(v[i].exit);
	}
	free(v);
}

static char *nonempty(const char *s, size_t n)
{
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	while (n && isspace((unsigned char)*s))
		s++, n--;
	return n && !(n == 6 && !strncmp(s, "(null)", 6)) ? xstrndup(s, n) : NULL;
}

static struct slurm_job *add(struct slurm_job **v, size_t *n, size_t *cap)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	struct slurm_job *j = &(*v)[(*n)++];
	memset(j, 0, sizeof(*j));
	return j;
}

void slurm_parse_squeue(const char *text, struct slurm_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0, nl;
	char **lines = str_split(text ? text : "", '\n', false, &nl);
	for (size_t i = 0; i < nl; i++) {
		size_t nf;
		char **f = str_split(lines[i], '|', true, &nf);
		char *id = nf >= 2 ? nonempty(f[0], strlen(f[0])) : NULL;
		if (id) {
			struct slurm_job *j = add(out, n, &cap);
			j->id = id;
			j->state = nonempty(f[1], strlen(f[1]));
			j->node = nf > 2 ? nonempty(f[2], strlen(f[2])) : NULL;
			j->reason = nf > 3 ? nonempty(f[3], strlen(f[3])) : NULL;
		}
		strv_free(f);
	}
	strv_free(lines);
}

/* The value of KEY= among the words of a record, or NULL. */
static char *field(char *const *words, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; words[i]; i++)
		if (!strncmp(words[i], key, kl) && words[i][kl] == '=')
			return nonempty(words[i] + kl + 1, strlen(words[i] + kl + 1));
	return NULL;
}

static void add_record(char *const *w, const char *id, struct slurm_job **out, size_t *n, size_t *cap)
{
	struct slurm_job *j = add(out, n, cap);
	j->id = xstrdup(id);
	j->state = field(w, "JobState");
	j->node = field(w, "NodeList");
	j->reason = field(w, "Reason");
	j->exit = field(w, "ExitCode");
}

void slurm_parse_scontrol(const char *text, struct slurm_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0, nl;
	char **lines = str_split(text ? text : "", '\n', false, &nl);
	for (size_t i = 0; i < nl; i++) {
		size_t nw;
		char **w = str_split(lines[i], ' ', false, &nw);
		char *job = field(w, "JobId");
		char *array = field(w, "ArrayJobId");
		char *tasks = field(w, "ArrayTaskId");
		if (job && !(array && tasks)) {
			add_record(w, job, out, n, &cap);
		} else if (job) {
			/* "3", or a pending range such as "2-4,7%2": one job per task */
			char *pct = strchr(tasks, '%');
			if (pct)
				*pct = '\0';
			size_t nr;
			char **ranges = str_split(tasks, ',', false, &nr);
			for (size_t r = 0; r < nr; r++) {
				char *end;
				long lo = strtol(ranges[r], &end, 10), hi = lo;
				if (*end == '-')
					hi = strtol(end + 1, &end, 10);
				for (long t = lo; !*end && t <= hi && t - lo < 100000; t++) {
					char id[64];
					snprintf(id, sizeof(id), "%s_%ld", array, t);
					add_record(w, id, out, n, &cap);
				}
			}
			strv_free(ranges);
		}
		free(job);
		free(array);
		free(tasks);
		strv_free(w);
	}
	strv_free(lines);
}

char *slurm_parse_jobid(const char *text)
{
	if (!text)
		return NULL;
	while (isspace((unsigned char)*text))
		text++;
	size_t n = 0;
	while (isdigit((unsigned char)text[n]))
		n++;
	if (!n || (text[n] && text[n] != ';' && !isspace((unsigned char)text[n])))
		return NULL;
	return xstrndup(text, n);
}

enum job_phase slurm_phase(const char *state)
{
	static const char *const waiting[] = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
					      "RESV_DEL_HOLD", "SUSPENDED", "SPECIAL_EXIT"};
	static const char *const running[] = {"RUNNING", "CONFIGURING", "COMPLETING", "RESIZING",
					      "SIGNALING", "STAGE_OUT", "STOPPED"};
	if (!state)
		return JOB_GONE;
	for (size_t i = 0; i < TP_ARRAY_LEN(waiting); i++)
		if (!strcmp(state, waiting[i]))
			return JOB_WAITING;
	for (size_t i = 0; i < TP_ARRAY_LEN(running); i++)
		if (!strcmp(state, running[i]))
			return JOB_RUNNING;
	if (str_starts(state, "CANCELLED"))
		return JOB_CANCELLED;
	return JOB_ENDED; /* COMPLETED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, ... */
}

int slurm_error_code(const char *stderr_text)
{
	static const char *const unreachable[] = {
		"Unable to contact slurm controller", "Socket timed out", "Zero Bytes were transmitted",
		"Connection refused", "Could not establish a configuration source",
		"Communication connection failure", "Unable to establish controller machine",
	};
	for (size_t i = 0; stderr_text && i < TP_ARRAY_LEN(unreachable); i++)
		if (strstr(stderr_text, unreachable[i]))
			return TP_EXIT_ENV;
	return TP_EXIT_USAGE;
}
