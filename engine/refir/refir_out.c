/* What a compile of the reference says: refir.json and the lines of
 * `tileport refir` (docs/refir.md, "Output"). */
#include "engine/refir/refir.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/json.h"

static void put_seconds(cJSON *o, const char *k, double s)
{
	cJSON_AddNumberToObject(o, k, (double)(long long)(s * 10000.0 + 0.5) / 10000.0);
}

char *refir_result_json(const struct refir_result *r)
{
	cJSON *o = cJSON_CreateObject();
	json_put_str(o, "source", r->source);
	json_put_str(o, "python", r->python);
	json_put_str(o, "cuda_tile", r->cuda_tile);
	json_put_str(o, "bytecode_version", r->bytecode_version);
	json_put_str(o, "sm", r->sm);
	json_put_str(o, "load_error", r->load_error);
	json_put_strv(o, "stubbed", r->stubbed);
	put_seconds(o, "load_seconds", r->load_seconds);
	put_seconds(o, "total_seconds", r->total_seconds);
	cJSON_AddNumberToObject(o, "compiled", (double)(r->n - r->nfailed));
	cJSON_AddNumberToObject(o, "failed", (double)r->nfailed);
	cJSON *ks = cJSON_AddArrayToObject(o, "kernels");
	for (size_t i = 0; i < r->n; i++) {
		const struct refir_kernel *k = &r->k[i];
		cJSON *j = cJSON_CreateObject();
		json_put_str(j, "kernel", k->kernel);
		json_put_str(j, "name", k->name);
		cJSON_AddBoolToObject(j, "ok", k->ok);
		json_put_str(j, "symbol", k->symbol);
		if (k->alias_from) {
			cJSON *al = cJSON_AddObjectToObject(j, "alias");
			json_put_str(al, "from", k->alias_from);
			json_put_str(al, "original", k->orig_mlir);
		}
		json_put_str(j, "mlir", k->mlir);
		json_put_str(j, "bytecode", k->bytecode);
		if (k->args) {
			char **lines = str_split(k->args, '\n', false, NULL);
			cJSON *a = cJSON_AddObjectToObject(j, "args");
			for (size_t l = 0; lines && lines[l]; l++) {
				char *colon = strstr(lines[l], ": ");
				if (!colon)
					continue;
				*colon = '\0';
				cJSON_AddStringToObject(a, lines[l], colon + 2);
			}
			strv_free(lines);
		}
		json_put_strv(j, "inferred", k->inferred);
		json_put_str(j, "error", k->error);
		json_put_str(j, "where", k->where);
		put_seconds(j, "seconds", k->seconds);
		if (k->nasm) {
			cJSON *as = cJSON_AddArrayToObject(j, "assembled");
			for (size_t a = 0; a < k->nasm; a++) {
				cJSON *x = cJSON_CreateObject();
				json_put_str(x, "sm", k->asm_[a].sm);
				cJSON_AddBoolToObject(x, "ok", k->asm_[a].ok);
				json_put_str(x, "message", k->asm_[a].message);
				put_seconds(x, "seconds", (double)k->asm_[a].ms / 1000.0);
				cJSON_AddItemToArray(as, x);
			}
		}
		cJSON_AddItemToArray(ks, j);
	}
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	char *out = xasprintf("%s\n", s);
	cJSON_free(s);
	return out;
}

void refir_result_print(const struct refir_result *r, FILE *out)
{
	if (r->load_error) {
		fprintf(out, "FAIL     %s\n", r->load_error);
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct refir_kernel *k = &r->k[i];
		if (k->ok)
			fprintf(out, "ok       %-28s %s (%s, %.2f s)\n", k->name, k->mlir ? k->mlir : "",
				k->symbol ? k->symbol : "?", k->seconds);
		else
			fprintf(out, "FAIL     %-28s %s%s%s\n", k->name ? k->name : "?",
				k->where ? k->where : "", k->where ? ": " : "",
				k->error ? k->error : "does not compile");
		for (size_t a = 0; a < k->nasm; a++)
			if (k->asm_[a].ok)
				fprintf(out, "         tileiras %-8s ok (%.2f s)\n", k->asm_[a].sm,
					(double)k->asm_[a].ms / 1000.0);
			else
				fprintf(out, "         tileiras %-8s refused: %s\n", k->asm_[a].sm,
					k->asm_[a].message ? k->asm_[a].message : "?");
		if (k->inferred && k->inferred[0]) {
			char *names = strv_join(k->inferred, ", ");
			fprintf(out, "         inferred, not given: %s\n", names);
			free(names);
		}
	}
	fprintf(out, "%zu of %zu ok, cuda.tile %s (bytecode %s, %s), %.2f s\n",
		r->n - r->nfailed, r->n, r->cuda_tile ? r->cuda_tile : "?",
		r->bytecode_version ? r->bytecode_version : "?", r->sm ? r->sm : "?",
		r->total_seconds);
}

void refir_result_free(struct refir_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct refir_kernel *k = &r->k[i];
		free(k->kernel);
		free(k->name);
		free(k->symbol);
		free(k->alias_from);
		free(k->orig_bytecode);
		free(k->orig_mlir);
		free(k->mlir);
		free(k->bytecode);
		free(k->args);
		strv_free(k->inferred);
		free(k->error);
		free(k->where);
		for (size_t a = 0; a < k->nasm; a++) {
			free(k->asm_[a].sm);
			free(k->asm_[a].message);
		}
		free(k->asm_);
	}
	free(r->k);
	free(r->source);
	free(r->cuda_tile);
	free(r->bytecode_version);
	free(r->sm);
	free(r->python);
	free(r->load_error);
	strv_free(r->stubbed);
	memset(r, 0, sizeof(*r));
}
