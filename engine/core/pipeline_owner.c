/* The owner class of a failing verdict: which side must act on it, from
 * the tag the agent's report carries (fail_class:, block_class:, owner:);
 * for a success claim the orchestrator's validator overruled, from what
 * failed it (the agent tagged nothing); for a missing tag, the table's
 * gate.missing_owner says whether to guess the kernel route or wait for a
 * person (docs/pipeline.md, "What happens to a reply"). */
#include "engine/base/files.h"
#include "engine/core/pipeline_int.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

/* A kernel-side file: what B writes (kernel.rs, its crate, the generated
 * IR). Everything else a validator checks is D's host side: ffi.rs, the
 * wrapper, the registration, the cdylib, correctness reports and logs. */
static bool kernel_side(const char *file)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return !strcmp(base, "kernel.rs") || str_starts(file, "generated/") ||
	       strstr(file, "/generated/") || !strcmp(file, "Cargo.toml") || !strcmp(file, "src/lib.rs") ||
	       str_ends(file, "_pipeline.rs");
}

/* Which side failed the orchestrator's validator, from its findings
 * (validator.json; a command validator's output otherwise): kernel when a
 * failing check is on a kernel-side file, else host. *evidence: the files. */
static const char *failed_side(struct pipeline *p, const struct attempt *a, struct sbuf *evidence)
{
	char *dir = run_attempt_dir(&p->st, a);
	char *jp = path_join(dir, "validator.json"), *tp = path_join(dir, "validator.txt");
	char *json = read_file(jp, NULL, NULL);
	cJSON *fs = json ? cJSON_Parse(json) : NULL, *f;
	bool kernel = false;
	cJSON_ArrayForEach(f, fs)
	{
		const char *sev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "severity"));
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "file"));
		if (!sev || strcmp(sev, "FAIL") != 0 || !file)
			continue;
		size_t rl = strlen(p->st.run_dir);
		if (!strncmp(file, p->st.run_dir, rl) && file[rl] == '/')
			file += rl + 1; /* the run's own files by their names in the layout */
		kernel |= kernel_side(file);
		if (!strstr(sb_str(evidence), file))
			sb_printf(evidence, "%s%s", evidence->len ? ", " : "", file);
	}
	if (!fs) {
		char *text = read_file(tp, NULL, NULL);
		kernel = text && (strstr(text, "kernel.rs") || strstr(text, "generated/"));
		sb_adds(evidence, "validator.txt");
		free(text);
	}
	cJSON_Delete(fs);
	free(json);
	free(jp);
	free(tp);
	free(dir);
	return kernel ? "kernel" : "host";
}

/* The agent claimed success, so its report tags no owner: what failed the
 * validator says which side must act. false when the verdict's classes
 * have no such side. */
static bool classify_overruled(struct pipeline *p, struct attempt *a, const struct owner_key *k)
{
	struct sbuf ev = SBUF_INIT;
	const char *side = failed_side(p, a, &ev);
	for (size_t i = 0; k->classes[i] && !a->klass; i++) {
		if (strcmp(k->classes[i], side) != 0)
			continue;
		pl_set(&a->klass, side);
		cJSON *f = pl_attempt_fields(a);
		cJSON_AddStringToObject(f, "class", side);
		cJSON_AddStringToObject(f, "from", sb_str(&ev));
		pl_emit(p, "owner_derived", f, "%c%d: owner %s, from what failed the validator (%s)", a->stage,
			a->n, side, sb_str(&ev));
	}
	sb_free(&ev);
	return a->klass != NULL;
}

void pl_classify(struct pipeline *p, struct attempt *a)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	const struct owner_key *k = stage_owner_key(s, a->verdict);
	pl_set(&a->klass, NULL);
	a->class_defaulted = false;
	a->owner_unknown = false;
	if (!k || (a->overruled && classify_overruled(p, a, k)))
		return;
	char *path = path_join(p->st.run_dir, s->owner_file);
	char *tag = owner_tag_read(path, k->key);
	bool valid = false;
	for (size_t i = 0; tag && k->classes[i]; i++)
		valid |= strcmp(tag, k->classes[i]) == 0;
	if (valid) {
		pl_set(&a->klass, tag);
	} else {
		/* Misrouting a host fault to the kernel stage wastes a whole retry:
		 * unless the table says to guess, routing waits for a person
		 * (pl_route asks, or stops when nobody can answer). */
		bool guess = p->table->missing_owner_kernel && s->owner_missing;
		pl_set(&a->klass, guess ? s->owner_missing : NULL);
		a->class_defaulted = guess;
		a->owner_unknown = !guess;
		cJSON *f = pl_attempt_fields(a);
		cJSON_AddStringToObject(f, "key", k->key);
		cJSON_AddStringToObject(f, "file", s->owner_file);
		if (tag)
			cJSON_AddStringToObject(f, "found", tag);
		pl_emit(p, "owner_default", f, "%c%d: no valid '%s:' in %s%s%s; %s", a->stage, a->n, k->key,
			s->owner_file, tag ? " (found " : "", tag ? tag : "",
			guess ? "kernel route (missing_owner = kernel)" : "the owner must be chosen");
	}
	free(tag);
	free(path);
}
