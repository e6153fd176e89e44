/* Opening an op: parse its source, pick its kernels, lower each one. */
#include "engine/base/files.h"
#include "engine/port/port_impl.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return xstrndup(b, dot ? (size_t)(dot - b) : strlen(b));
}

static int open_parsed(struct port_op *op, const char *kernel, bool partial, struct port_op **out,
		       struct tp_err *err);

static int open_path(const char *path, const char *kernel, const char *opname, bool partial,
		     struct port_op **out, struct tp_err *err)
{
	*out = NULL;
	struct port_op *op = xcalloc(1, sizeof(*op));
	op->path = xstrdup(path);
	op->name = opname ? xstrdup(opname) : stem(path);
	if (pymod_load(&op->m, path, err) < 0) {
		port_close(op);
		return -1;
	}
	return open_parsed(op, kernel, partial, out, err);
}

int port_open(const char *path, const char *kernel, const char *opname, struct port_op **out,
	      struct tp_err *err)
{
	return open_path(path, kernel, opname, false, out, err);
}

int port_open_partial(const char *path, const char *opname, struct port_op **out, struct tp_err *err)
{
	return open_path(path, NULL, opname, true, out, err);
}

static int open_source(const char *path, const char *src, size_t len, const char *kernel,
		       const char *opname, bool partial, struct port_op **out, struct tp_err *err);

static int open_in(const char *root, const char *rel, const char *kernel, const char *opname,
		   bool partial, struct port_op **out, struct tp_err *err)
{
	*out = NULL;
	char *abs = path_join(root, rel);
	size_t len;
	struct tp_err rerr = {0};
	char *src = read_file(abs, &len, &rerr);
	free(abs);
	if (!src) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", rerr.msg);
		return -1;
	}
	int rc = open_source(rel, src, len, kernel, opname, partial, out, err);
	free(src);
	return rc;
}

int port_open_in(const char *root, const char *rel, const char *kernel, const char *opname,
		 struct port_op **out, struct tp_err *err)
{
	return open_in(root, rel, kernel, opname, false, out, err);
}

int port_open_in_partial(const char *root, const char *rel, const char *opname, struct port_op **out,
			 struct tp_err *err)
{
	return open_in(root, rel, NULL, opname, true, out, err);
}

int port_open_source(const char *path, const char *src, size_t len, const char *kernel,
		     const char *opname, struct port_op **out, struct tp_err *err)
{
	return open_source(path, src, len, kernel, opname, false, out, err);
}

int port_open_source_partial(const char *path, const char *src, size_t len, const char *opname,
			     struct port_op **out, struct tp_err *err)
{
	return open_source(path, src, len, NULL, opname, true, out, err);
}

static int open_source(const char *path, const char *src, size_t len, const char *kernel,
		       const char *opname, bool partial, struct port_op **out, struct tp_err *err)
{
	*out = NULL;
	struct port_op *op = xcalloc(1, sizeof(*op));
	op->path = xstrdup(path);
	op->name = opname ? xstrdup(opname) : stem(path);
	if (pymod_parse(&op->m, path, src, len, err) < 0) {
		port_close(op);
		return -1;
	}
	return open_parsed(op, kernel, partial, out, err);
}

/* Refusals name a value's kind after "a" ("len() of a %s"): the kinds that
 * begin with a vowel take "an". One place, so that every refusal reads
 * right whatever built it. */
static void articles(struct tp_err *err)
{
	static const char *const vowel_kinds[] = {"integer", "array", "enum member"};
	if (!err)
		return;
	struct sbuf sb = SBUF_INIT;
	const char *m = err->msg;
	while (*m) {
		bool fixed = false;
		bool word_start = m == err->msg || m[-1] == ' ' || m[-1] == '(';
		for (size_t i = 0; word_start && i < TP_ARRAY_LEN(vowel_kinds) && !fixed; i++) {
			size_t n = strlen(vowel_kinds[i]);
			if (!strncmp(m, "a ", 2) && !strncmp(m + 2, vowel_kinds[i], n)) {
				sb_adds(&sb, "an ");
				m += 2;
				fixed = true;
			}
		}
		if (!fixed)
			sb_addc(&sb, *m++);
	}
	snprintf(err->msg, sizeof(err->msg), "%s", sb_str(&sb));
	sb_free(&sb);
}

/* Keep a kernel's refusal (err's message) and go on with the next. */
static void refuse(struct port_op *op, const struct pm_func *k, const struct tp_err *err)
{
	op->refused = xrealloc(op->refused, (op->nrefused + 1) * sizeof(*op->refused));
	struct port_refusal *r = &op->refused[op->nrefused++];
	r->kernel = xstrdup(k->name);
	r->line = k->def ? k->def->line : 0;
	r->message = xstrdup(err->msg);
	const char *u = strstr(err->msg, ": unsupported: ");
	if (u) {
		r->where = xstrndup(err->msg, (size_t)(u - err->msg));
		r->construct = xstrdup(u + strlen(": unsupported: "));
	} else {
		r->where = xasprintf("%s:%d:1", op->path, r->line);
		r->construct = xstrdup(err->msg);
	}
}

static int open_parsed(struct port_op *op, const char *kernel, bool partial, struct port_op **out,
		       struct tp_err *err)
{
	const char *path = op->path;
	const struct pm_func *ks[64];
	size_t n = pymod_kernels(&op->m, ks, TP_ARRAY_LEN(ks));
	if (n > TP_ARRAY_LEN(ks))
		n = TP_ARRAY_LEN(ks);
	op->k = xcalloc(n ? n : 1, sizeof(*op->k));
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (kernel && strcmp(ks[i]->name, kernel) != 0)
			continue;
		found = true;
		struct tkernel *k;
		struct tp_err kerr = {0};
		if (lower_kernel(&op->m, ks[i], op->name, &k, &kerr) < 0) {
			articles(&kerr);
			/* a refusal stays the kernel's; anything else (bad
			 * input) is the file's */
			if (partial && kerr.code == TP_EXIT_FAILED) {
				refuse(op, ks[i], &kerr);
				continue;
			}
			if (err)
				*err = kerr;
			port_close(op);
			return -1;
		}
		op->fe = k->fe;
		op->k[op->nk++] = k;
	}
	if (kernel && !found) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no kernel named %s (kernels: %zu)", path, kernel, n);
		port_close(op);
		return -1;
	}
	if (!op->nk && op->nrefused) {
		tp_err_set(err, TP_EXIT_FAILED, "%s", op->refused[0].message);
		port_close(op);
		return -1;
	}
	if (!op->nk) {
		tp_err_set(err, TP_EXIT_FAILED,
			   "%s:1:1: unsupported: a file without a @ct.kernel or @triton.jit kernel", path);
		port_close(op);
		return -1;
	}
	*out = op;
	return 0;
}

void port_close(struct port_op *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->nk; i++)
		tkernel_free(op->k[i]);
	free(op->k);
	for (size_t i = 0; i < op->nrefused; i++) {
		free(op->refused[i].kernel);
		free(op->refused[i].message);
		free(op->refused[i].where);
		free(op->refused[i].construct);
	}
	free(op->refused);
	pymod_free(&op->m);
	free(op->path);
	free(op->name);
	free(op);
}

size_t port_refused(const struct port_op *op, const struct port_refusal **out)
{
	if (out)
		*out = op->refused;
	return op->nrefused;
}

char **port_kernel_names(const struct port_op *op)
{
	char **v = xcalloc(op->nk + 1, sizeof(*v));
	for (size_t i = 0; i < op->nk; i++)
		v[i] = xstrdup(op->k[i]->name);
	return v;
}

char *port_partial_summary(const struct port_op *op, const char *kernel_rs)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < op->nrefused; i++)
		sb_printf(&sb, "%s%s: %s (kernel %s, not translated)", i ? "; " : "", op->refused[i].where,
			  op->refused[i].construct, op->refused[i].kernel);
	sb_printf(&sb, "; %s holds the translated kernel%s ", kernel_rs, op->nk == 1 ? "" : "s");
	for (size_t i = 0; i < op->nk; i++)
		sb_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == op->nk ? " and " : ", ", op->k[i]->name);
	return sb_detach(&sb);
}

const char *port_op_name(const struct port_op *op)
{
	return op->name;
}

const char *port_op_backend(const struct port_op *op)
{
	return op->fe == FE_TRITON ? "triton" : "cutile";
}

char *port_kernel_rs(const struct port_op *op, const char *source_rel)
{
	char *rs = port_emit_module(op, source_rel ? source_rel : op->path);
	if (!op->nrefused)
		return rs;
	/* a partial translation says what it lacks where its reader starts,
	 * after the header comment: the kernels an agent is to add */
	const char *body = rs;
	while (str_starts(body, "//") && strchr(body, '\n'))
		body = strchr(body, '\n') + 1;
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "%.*s", (int)(body - rs), rs);
	for (size_t i = 0; i < op->nrefused; i++)
		sb_printf(&sb, "// Not translated, left for an agent: kernel `%s` (%s: %s)\n",
			  op->refused[i].kernel, op->refused[i].where, op->refused[i].construct);
	sb_adds(&sb, body);
	free(rs);
	return sb_detach(&sb);
}

size_t port_entries(const struct port_op *op, struct port_entry *out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < op->nk; k++)
		for (size_t i = 0; i < op->k[k]->nentries; i++, n++)
			if (n < max) {
				const struct tentry *e = &op->k[k]->entries[i];
				out[n] = (struct port_entry){op->k[k]->name, e->name, e->variant,
							     e->dispatch_py,
							     port_entry_pattern(op->k[k], e),
							     op->k[k]->line, e->nderived};
			}
	return n;
}

static const char *const param_kinds[] = {
	[TP_ARRAY] = "array", [TP_SCALAR] = "scalar", [TP_CONST] = "constant",
	[TP_SHAPE] = "extent", [TP_STRIDE] = "stride",
};

static cJSON *refusal_json(const struct port_refusal *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", r->kernel);
	cJSON_AddStringToObject(o, "status", "refused");
	cJSON_AddNumberToObject(o, "line", r->line);
	cJSON_AddStringToObject(o, "where", r->where);
	cJSON_AddStringToObject(o, "construct", r->construct);
	return o;
}

char *port_translation_json(const struct port_op *op)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "op", op->name);
	cJSON_AddStringToObject(root, "source", op->path);
	cJSON_AddStringToObject(root, "backend", port_op_backend(op));
	cJSON_AddStringToObject(root, "status", op->nrefused ? "partial" : "translated");
	char *mod = xasprintf("%s_module", op->name);
	cJSON_AddStringToObject(root, "module", mod);
	free(mod);
	cJSON *ks = cJSON_AddArrayToObject(root, "kernels");
	size_t rf = 0;
	for (size_t k = 0; k < op->nk; k++) {
		const struct tkernel *kn = op->k[k];
		/* the refused kernels before it, in source order */
		for (; rf < op->nrefused && op->refused[rf].line < kn->line; rf++)
			cJSON_AddItemToArray(ks, refusal_json(&op->refused[rf]));
		cJSON *jk = cJSON_CreateObject();
		cJSON_AddStringToObject(jk, "name", kn->name);
		cJSON_AddStringToObject(jk, "status", "translated");
		cJSON_AddNumberToObject(jk, "line", kn->line);
		cJSON_AddStringToObject(jk, "frontend", kn->fe == FE_TRITON ? "triton" : "cutile");
		cJSON *ps = cJSON_AddArrayToObject(jk, "params");
		for (size_t i = 0; i < kn->nparams; i++) {
			const struct tparam *p = &kn->params[i];
			cJSON *jp = cJSON_CreateObject();
			cJSON_AddStringToObject(jp, "name", p->name);
			cJSON_AddStringToObject(jp, "rust", p->rs);
			cJSON_AddStringToObject(jp, "kind", param_kinds[p->kind]);
			cJSON_AddStringToObject(jp, "dtype", tdt_rust(p->dt));
			if (p->kind == TP_ARRAY)
				cJSON_AddStringToObject(jp, "access", p->ptr ? "pointer" : "view");
			if (p->kind == TP_SHAPE || p->kind == TP_STRIDE) {
				cJSON_AddStringToObject(jp, "of", kn->params[p->of].name);
				cJSON_AddNumberToObject(jp, "axis", p->axis);
			}
			cJSON_AddItemToArray(ps, jp);
		}
		cJSON *hs = cJSON_AddArrayToObject(jk, "hints");
		for (size_t i = 0; i < kn->nhints; i++) {
			cJSON *h = cJSON_CreateObject();
			cJSON_AddStringToObject(h, "target", kn->hints[i].target);
			cJSON_AddStringToObject(h, "key", kn->hints[i].key);
			cJSON_AddNumberToObject(h, "value", (double)kn->hints[i].value);
			cJSON_AddItemToArray(hs, h);
		}
		cJSON *es = cJSON_AddArrayToObject(jk, "entries");
		for (size_t i = 0; i < kn->nentries; i++) {
			const struct tentry *e = &kn->entries[i];
			cJSON *je = cJSON_CreateObject();
			cJSON_AddStringToObject(je, "name", e->name);
			cJSON_AddStringToObject(je, "variant", e->variant);
			cJSON_AddStringToObject(je, "dispatch", e->dispatch_py);
			if (e->dispatch_ffi)
				cJSON_AddStringToObject(je, "dispatch_ffi", e->dispatch_ffi);
			cJSON_AddStringToObject(je, "pattern", port_entry_pattern(kn, e));
			cJSON *g = cJSON_AddArrayToObject(je, "generics");
			cJSON_AddItemToArray(g, cJSON_CreateString("E"));
			for (size_t j = 0; j < e->ngenerics; j++)
				cJSON_AddItemToArray(g, cJSON_CreateString(e->generics[j]));
			for (size_t j = 0; j < e->npreds; j++)
				cJSON_AddItemToArray(g, cJSON_CreateString(e->preds[j]));
			cJSON *pu = cJSON_AddArrayToObject(je, "params");
			for (size_t j = 0; j < kn->nparams; j++) {
				if (!e->param_used[j] || kn->params[j].kind == TP_CONST)
					continue;
				cJSON *jp = cJSON_CreateObject();
				cJSON_AddStringToObject(jp, "name", kn->params[j].rs);
				if (kn->params[j].kind == TP_ARRAY)
					cJSON_AddNumberToObject(jp, "rank", e->param_rank[j]);
				cJSON_AddItemToArray(pu, jp);
			}
			struct inv_list l = {0};
			inv_from_entry(kn, e, &l);
			cJSON *inv = cJSON_AddArrayToObject(je, "inventory");
			for (size_t j = 0; j < l.n; j++) {
				cJSON *it = cJSON_CreateObject();
				cJSON_AddStringToObject(it, "op", l.v[j].op);
				cJSON_AddStringToObject(it, "attr", l.v[j].attr);
				cJSON_AddNumberToObject(it, "line", l.v[j].line);
				if (l.v[j].implicit)
					cJSON_AddBoolToObject(it, "implicit", true);
				cJSON_AddItemToArray(inv, it);
			}
			inv_list_free(&l);
			cJSON_AddItemToArray(es, je);
		}
		cJSON_AddItemToArray(ks, jk);
	}
	for (; rf < op->nrefused; rf++)
		cJSON_AddItemToArray(ks, refusal_json(&op->refused[rf]));
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	char *r = xasprintf("%s\n", s);
	cJSON_free(s);
	return r;
}
