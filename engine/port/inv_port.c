/* The inventory of a source/Rust pair (engine/port/port.h): every Rust
 * entry paired with the Python kernel and variant of the same name (or,
 * for a Rust kernel someone else named, the one whose op sequence it
 * matches best), the two sequences aligned, and the text and JSON forms. */
#include "engine/port/port_impl.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

struct inv_priv {
	struct inv_list *py, *rs;
	struct inv_match *match;
	struct port_inv_op **pyops, **rsops;
	struct port_inv_pair **pairs;
	struct port_inv_finding **findings;
	size_t n;
	char **strings;
	size_t nstrings, capstrings;
};

static const char *keep(struct inv_priv *p, char *s)
{
	p->strings = xgrow(p->strings, &p->capstrings, p->nstrings + 1, sizeof(*p->strings));
	p->strings[p->nstrings++] = s;
	return s;
}

static size_t lcs(const struct inv_list *a, const struct inv_list *b)
{
	struct inv_match m;
	inv_compare(a, b, &m);
	size_t same = 0;
	for (size_t i = 0; i < m.npairs; i++)
		same += m.pairs[i].py != SIZE_MAX && m.pairs[i].rs != SIZE_MAX;
	inv_match_free(&m);
	return same;
}

static void side(struct port_inv_side *s, const struct inv_list *l, struct port_inv_op **ops)
{
	*ops = xcalloc(l->n ? l->n : 1, sizeof(**ops));
	for (size_t i = 0; i < l->n; i++)
		(*ops)[i] = (struct port_inv_op){l->v[i].op, l->v[i].attr, l->v[i].line, l->v[i].implicit};
	s->entry = l->entry;
	s->ops = *ops;
	s->n = l->n;
}

int port_inventory(const char *py_path, const char *rs_path, struct port_inventory *out,
		   struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	struct port_op *op;
	if (port_open(py_path, NULL, NULL, &op, err) < 0)
		return -1;
	size_t rlen;
	struct tp_err rerr = {0};
	char *rsrc = read_file(rs_path, &rlen, &rerr);
	if (!rsrc) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", rerr.msg);
		port_close(op);
		return -1;
	}
	port_inventory_of(op, rsrc, rlen, out);
	free(rsrc);
	port_close(op);
	return 0;
}

void port_inventory_of(const struct port_op *op, const char *rsrc, size_t rlen,
		       struct port_inventory *out)
{
	memset(out, 0, sizeof(*out));
	struct inv_list *rs;
	size_t nrs = inv_from_rust(rsrc, rlen, &rs);
	size_t npy = 0;
	for (size_t k = 0; k < op->nk; k++)
		npy += op->k[k]->nentries;
	struct inv_list *py = xcalloc(npy ? npy : 1, sizeof(*py));
	size_t j = 0;
	for (size_t k = 0; k < op->nk; k++)
		for (size_t e = 0; e < op->k[k]->nentries; e++)
			inv_from_entry(op->k[k], &op->k[k]->entries[e], &py[j++]);

	struct inv_priv *p = xcalloc(1, sizeof(*p));
	size_t cap = nrs + npy + 1;
	p->py = xcalloc(cap, sizeof(*p->py));
	p->rs = xcalloc(cap, sizeof(*p->rs));
	p->match = xcalloc(cap, sizeof(*p->match));
	p->pyops = xcalloc(cap, sizeof(*p->pyops));
	p->rsops = xcalloc(cap, sizeof(*p->rsops));
	p->pairs = xcalloc(cap, sizeof(*p->pairs));
	p->findings = xcalloc(cap, sizeof(*p->findings));
	out->entries = xcalloc(cap, sizeof(*out->entries));
	out->priv = p;
	bool *taken = xcalloc(npy + 1, sizeof(bool));
	/* pair each Rust entry: by name, else by the best alignment */
	for (size_t r = 0; r < nrs; r++) {
		long best = -1;
		for (size_t i = 0; i < npy && best < 0; i++)
			if (!taken[i] && strcmp(py[i].entry, rs[r].entry) == 0)
				best = (long)i;
		if (best < 0) {
			size_t top = 0;
			for (size_t i = 0; i < npy; i++) {
				if (taken[i])
					continue;
				size_t s = lcs(&py[i], &rs[r]);
				if (best < 0 || s > top) {
					best = (long)i;
					top = s;
				}
			}
		}
		size_t n = p->n++;
		p->rs[n] = rs[r];
		memset(&rs[r], 0, sizeof(rs[r]));
		if (best >= 0) {
			taken[best] = true;
			p->py[n] = py[best];
			memset(&py[best], 0, sizeof(py[best]));
		} else {
			p->py[n].entry = xstrdup("");
		}
		inv_compare(&p->py[n], &p->rs[n], &p->match[n]);
	}
	for (size_t i = 0; i < npy; i++) {
		if (taken[i])
			continue;
		size_t n = p->n++;
		p->py[n] = py[i];
		memset(&py[i], 0, sizeof(py[i]));
		p->rs[n].entry = xstrdup("");
		inv_compare(&p->py[n], &p->rs[n], &p->match[n]);
	}
	free(taken);
	for (size_t i = 0; i < npy; i++)
		inv_list_free(&py[i]);
	free(py);
	for (size_t r = 0; r < nrs; r++)
		inv_list_free(&rs[r]);
	free(rs);
	/* the public form */
	for (size_t n = 0; n < p->n; n++) {
		struct port_inv_entry *e = &out->entries[n];
		struct inv_match *m = &p->match[n];
		side(&e->py, &p->py[n], &p->pyops[n]);
		side(&e->rs, &p->rs[n], &p->rsops[n]);
		p->pairs[n] = xcalloc(m->npairs + 1, sizeof(**p->pairs));
		for (size_t i = 0; i < m->npairs; i++)
			p->pairs[n][i] = (struct port_inv_pair){
				m->pairs[i].py == SIZE_MAX ? -1 : (long)m->pairs[i].py,
				m->pairs[i].rs == SIZE_MAX ? -1 : (long)m->pairs[i].rs, m->pairs[i].attr_differs};
		e->pairs = p->pairs[n];
		e->npairs = m->npairs;
		p->findings[n] = xcalloc(m->nfindings + 2, sizeof(**p->findings));
		size_t f = 0;
		if (!*p->py[n].entry) {
			p->findings[n][f++] = (struct port_inv_finding){
				"WARN", "inventory.entry",
				keep(p, xasprintf("Rust entry %s has no kernel or variant in the source",
						  p->rs[n].entry)),
				0, 0};
			out->nwarn++;
		} else if (!*p->rs[n].entry) {
			p->findings[n][f++] = (struct port_inv_finding){
				"CRITICAL", "inventory.entry",
				keep(p, xasprintf("%s has no Rust entry", p->py[n].entry)), 0, 0};
			out->ncritical++;
		}
		/* with one side missing, its entry finding says it all */
		if (*p->py[n].entry && *p->rs[n].entry) {
			for (size_t i = 0; i < m->nfindings; i++)
				p->findings[n][f++] = (struct port_inv_finding){
					inv_sev_name(m->findings[i].sev), m->findings[i].rule,
					m->findings[i].message, m->findings[i].py_line, m->findings[i].rs_line};
			out->ncritical += m->ncritical;
			out->nwarn += m->nwarn;
			out->ninfo += m->ninfo;
		}
		e->findings = p->findings[n];
		e->nfindings = f;
	}
	out->n = p->n;
}

void port_inventory_free(struct port_inventory *inv)
{
	struct inv_priv *p = inv->priv;
	if (p) {
		for (size_t n = 0; n < p->n; n++) {
			inv_list_free(&p->py[n]);
			inv_list_free(&p->rs[n]);
			inv_match_free(&p->match[n]);
			free(p->pyops[n]);
			free(p->rsops[n]);
			free(p->pairs[n]);
			free(p->findings[n]);
		}
		for (size_t i = 0; i < p->nstrings; i++)
			free(p->strings[i]);
		free(p->strings);
		free(p->py);
		free(p->rs);
		free(p->match);
		free(p->pyops);
		free(p->rsops);
		free(p->pairs);
		free(p->findings);
		free(p);
	}
	free(inv->entries);
	memset(inv, 0, sizeof(*inv));
}

const char *port_inventory_verdict(const struct port_inventory *inv)
{
	return inv->ncritical ? "MISMATCH" : inv->nwarn ? "MATCH_WITH_NOTES" : "MATCH";
}

char *port_inventory_text(const struct port_inventory *inv, const char *py_path,
			  const char *rs_path)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t n = 0; n < inv->n; n++) {
		const struct port_inv_entry *e = &inv->entries[n];
		sb_printf(&sb, "entry %s <-> %s: %zu source op(s), %zu Rust op(s)\n",
			  *e->py.entry ? e->py.entry : "(none)", *e->rs.entry ? e->rs.entry : "(none)",
			  e->py.n, e->rs.n);
		for (size_t i = 0; i < e->nfindings; i++) {
			const struct port_inv_finding *f = &e->findings[i];
			sb_printf(&sb, "%s [%s]", f->severity, f->rule);
			if (f->py_line)
				sb_printf(&sb, " %s:%d", py_path, f->py_line);
			if (f->rs_line)
				sb_printf(&sb, " %s:%d", rs_path, f->rs_line);
			sb_printf(&sb, ": %s\n", f->message);
		}
	}
	sb_printf(&sb, "inventory: %d critical, %d warn, %d info\n%s\n", inv->ncritical, inv->nwarn,
		  inv->ninfo, port_inventory_verdict(inv));
	return sb_detach(&sb);
}

static cJSON *side_json(const struct port_inv_side *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "entry", s->entry);
	cJSON *ops = cJSON_AddArrayToObject(o, "ops");
	for (size_t i = 0; i < s->n; i++) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "op", s->ops[i].op);
		cJSON_AddStringToObject(j, "attr", s->ops[i].attr);
		cJSON_AddNumberToObject(j, "line", s->ops[i].line);
		if (s->ops[i].implicit)
			cJSON_AddBoolToObject(j, "implicit", true);
		cJSON_AddItemToArray(ops, j);
	}
	return o;
}

char *port_inventory_json(const struct port_inventory *inv, const char *py_path,
			  const char *rs_path)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "source", py_path);
	cJSON_AddStringToObject(root, "rust", rs_path);
	cJSON_AddStringToObject(root, "verdict", port_inventory_verdict(inv));
	cJSON *counts = cJSON_AddObjectToObject(root, "counts");
	cJSON_AddNumberToObject(counts, "CRITICAL", inv->ncritical);
	cJSON_AddNumberToObject(counts, "WARN", inv->nwarn);
	cJSON_AddNumberToObject(counts, "INFO", inv->ninfo);
	cJSON *es = cJSON_AddArrayToObject(root, "entries");
	for (size_t n = 0; n < inv->n; n++) {
		const struct port_inv_entry *e = &inv->entries[n];
		cJSON *je = cJSON_CreateObject();
		cJSON_AddItemToObject(je, "source", side_json(&e->py));
		cJSON_AddItemToObject(je, "rust", side_json(&e->rs));
		cJSON *pairs = cJSON_AddArrayToObject(je, "pairs");
		for (size_t i = 0; i < e->npairs; i++) {
			cJSON *p = cJSON_CreateObject();
			const struct port_inv_pair *pp = &e->pairs[i];
			if (pp->py >= 0)
				cJSON_AddNumberToObject(p, "source_line", e->py.ops[pp->py].line);
			if (pp->rs >= 0)
				cJSON_AddNumberToObject(p, "rust_line", e->rs.ops[pp->rs].line);
			cJSON_AddStringToObject(p, "op", pp->py >= 0 ? e->py.ops[pp->py].op : e->rs.ops[pp->rs].op);
			cJSON_AddBoolToObject(p, "match", !pp->differs);
			cJSON_AddItemToArray(pairs, p);
		}
		cJSON *fs = cJSON_AddArrayToObject(je, "findings");
		for (size_t i = 0; i < e->nfindings; i++) {
			const struct port_inv_finding *f = &e->findings[i];
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "severity", f->severity);
			cJSON_AddStringToObject(j, "rule", f->rule);
			cJSON_AddStringToObject(j, "message", f->message);
			if (f->py_line)
				cJSON_AddNumberToObject(j, "source_line", f->py_line);
			if (f->rs_line)
				cJSON_AddNumberToObject(j, "rust_line", f->rs_line);
			cJSON_AddItemToArray(fs, j);
		}
		cJSON_AddItemToArray(es, je);
	}
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	char *r = xasprintf("%s\n", s);
	cJSON_free(s);
	return r;
}
