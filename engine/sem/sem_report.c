/* The semantic check's report as text and JSON, and its verdict. */
#include "engine/sem/sem.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *sem_sev_name(enum sem_sev s)
{
	return s == SEM_CRITICAL ? "CRITICAL" : s == SEM_WARN ? "WARN" : "NOTE";
}

const char *sem_verdict(const struct sem_report *r)
{
	return r->ncritical ? "MISMATCH" : r->nwarn ? "MATCH_WITH_NOTES" : "MATCH";
}

char *sem_report_text(const struct sem_report *r, const char *py_path, const char *rs_path)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t e = 0; e < r->nentries; e++) {
		const struct sem_entry *en = &r->entries[e];
		sb_printf(&sb, "entry %s <-> %s: %d critical, %d warn, %d note\n", *en->source ? en->source : "(none)",
			  *en->rust ? en->rust : "(none)", en->ncritical, en->nwarn, en->nnote);
		for (int sev = SEM_CRITICAL; sev >= SEM_NOTE; sev--)
			for (size_t i = 0; i < r->nfindings; i++) {
				const struct sem_finding *f = &r->findings[i];
				if (f->entry != e || (int)f->sev != sev)
					continue;
				sb_printf(&sb, "%s [%s]", sem_sev_name(f->sev), f->rule);
				if (f->py_line)
					sb_printf(&sb, " %s:%d", py_path, f->py_line);
				if (f->rs_line)
					sb_printf(&sb, " %s:%d", rs_path, f->rs_line);
				sb_printf(&sb, ": %s\n", f->message);
			}
	}
	sb_printf(&sb, "semantic check (dataflow%s): %d critical, %d warn, %d note\n%s\n",
		  r->with_ffi ? ", with the launcher" : "", r->ncritical, r->nwarn, r->nnote, sem_verdict(r));
	return sb_detach(&sb);
}

char *sem_report_json(const struct sem_report *r, const char *py_path, const char *rs_path)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "source", py_path);
	cJSON_AddStringToObject(root, "rust", rs_path);
	cJSON_AddStringToObject(root, "evidence", "dataflow");
	cJSON_AddBoolToObject(root, "launcher", r->with_ffi);
	cJSON_AddStringToObject(root, "verdict", sem_verdict(r));
	cJSON *counts = cJSON_AddObjectToObject(root, "counts");
	cJSON_AddNumberToObject(counts, "CRITICAL", r->ncritical);
	cJSON_AddNumberToObject(counts, "WARN", r->nwarn);
	cJSON_AddNumberToObject(counts, "NOTE", r->nnote);
	cJSON *es = cJSON_AddArrayToObject(root, "entries");
	for (size_t e = 0; e < r->nentries; e++) {
		const struct sem_entry *en = &r->entries[e];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "source", en->source);
		cJSON_AddStringToObject(j, "rust", en->rust);
		if (*en->covers)
			cJSON_AddStringToObject(j, "covers", en->covers);
		cJSON *fs = cJSON_AddArrayToObject(j, "findings");
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct sem_finding *f = &r->findings[i];
			if (f->entry != e)
				continue;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "severity", sem_sev_name(f->sev));
			cJSON_AddStringToObject(o, "rule", f->rule);
			cJSON_AddStringToObject(o, "message", f->message);
			if (f->source_value)
				cJSON_AddStringToObject(o, "source_value", f->source_value);
			if (f->rust_value)
				cJSON_AddStringToObject(o, "rust_value", f->rust_value);
			if (f->py_line)
				cJSON_AddNumberToObject(o, "source_line", f->py_line);
			if (f->rs_line)
				cJSON_AddNumberToObject(o, "rust_line", f->rs_line);
			cJSON_AddItemToArray(fs, o);
		}
		cJSON *ls = cJSON_AddArrayToObject(j, "links");
		for (size_t i = 0; i < r->nlinks; i++) {
			const struct sem_link *l = &r->links[i];
			if (l->entry != e)
				continue;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "source_line", l->py_line);
			cJSON_AddNumberToObject(o, "rust_line", l->rs_line);
			if (l->differs)
				cJSON_AddBoolToObject(o, "differs", true);
			cJSON_AddItemToArray(ls, o);
		}
		cJSON_AddItemToArray(es, j);
	}
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	char *out = xasprintf("%s\n", s);
	cJSON_free(s);
	return out;
}
