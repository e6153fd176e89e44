#include "engine/base/files.h"
#include "engine/core/verdict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct line {
	const char *s;
	size_t n;
};

/* Split into lines without copying; "\r\n" and a lone "\r" before "\n" are
 * line ends; any other byte (NUL included) is content. */
static struct line *split_lines(const char *text, size_t len, size_t *count)
{
	struct line *v = NULL;
	size_t cap = 0, n = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || text[i] == '\n') {
			size_t end = i;
			if (end > start && text[end - 1] == '\r')
				end--;
			if (i < len || end > start) {
				v = xgrow(v, &cap, n + 1, sizeof(*v));
				v[n++] = (struct line){text + start, end - start};
			}
			start = i + 1;
		}
	}
	*count = n;
	return v;
}

static bool line_has(const struct line *l, const char *needle)
{
	size_t k = strlen(needle);
	if (l->n < k)
		return false;
	for (size_t i = 0; i + k <= l->n; i++)
		if (memcmp(l->s + i, needle, k) == 0)
			return true;
	return false;
}

/* Skip markdown decoration at a line start: blanks, quotes, bullets,
 * emphasis, headings, code ticks. */
static size_t skip_decor(const struct line *l, size_t i)
{
	while (i < l->n && strchr(" \t>*#-_`|", l->s[i]))
		i++;
	return i;
}

/* If the line is a VERDICT line, return the verdict token (allocated). */
static char *verdict_of(const struct line *l)
{
	size_t i = skip_decor(l, 0);
	static const char kw[] = "VERDICT:";
	if (l->n - i < sizeof(kw) - 1 || memcmp(l->s + i, kw, sizeof(kw) - 1) != 0)
		return NULL;
	i += sizeof(kw) - 1;
	while (i < l->n && strchr(" \t*_`", l->s[i]))
		i++;
	size_t j = i;
	while (j < l->n && (isupper((unsigned char)l->s[j]) || isdigit((unsigned char)l->s[j]) ||
			    l->s[j] == '_'))
		j++;
	return j > i ? xstrndup(l->s + i, j - i) : NULL;
}

static bool in_vocab(char *const *vocab, const char *v)
{
	for (size_t i = 0; vocab && vocab[i]; i++)
		if (strcmp(vocab[i], v) == 0)
			return true;
	return false;
}

/* Find "exit=N" or "exit_code=N" as a word in the line. */
static bool exit_of(const struct line *l, int *code)
{
	static const char *keys[] = {"exit_code=", "exit="};
	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]);
		for (size_t i = 0; i + kl < l->n + 1; i++) {
			if (memcmp(l->s + i, keys[k], kl) != 0)
				continue;
			if (i > 0 && (isalnum((unsigned char)l->s[i - 1]) || l->s[i - 1] == '_'))
				continue;
			size_t j = i + kl;
			bool neg = j < l->n && l->s[j] == '-';
			if (neg)
				j++;
			long v = 0;
			size_t d = j;
			while (j < l->n && isdigit((unsigned char)l->s[j]) && v < 100000)
				v = v * 10 + (l->s[j++] - '0');
			if (j == d)
				continue;
			*code = (int)(neg ? -v : v);
			return true;
		}
	}
	return false;
}

static void add_cmd(struct verdict_reply *r, const char *cmd, size_t n)
{
	r->cmds = xrealloc(r->cmds, (r->ncmds + 1) * sizeof(*r->cmds));
	r->cmds[r->ncmds++] = (struct verdict_cmd){cmd ? xstrndup(cmd, n) : NULL, NULL, false, 0};
}

static void parse_block(struct verdict_reply *r, const struct line *lines, size_t from, size_t to,
			size_t skip)
{
	struct sbuf out = SBUF_INIT;
	for (size_t i = from; i < to; i++) {
		if (i == skip)
			continue;
		const struct line *l = &lines[i];
		size_t k = 0;
		while (k < l->n && (l->s[k] == ' ' || l->s[k] == '\t'))
			k++;
		if (l->n - k >= 2 && l->s[k] == '$' && l->s[k + 1] == ' ') {
			if (r->ncmds)
				r->cmds[r->ncmds - 1].output = sb_detach(&out);
			add_cmd(r, l->s + k + 2, l->n - k - 2);
			continue;
		}
		int code;
		if (exit_of(l, &code)) {
			if (!r->ncmds || r->cmds[r->ncmds - 1].has_exit) {
				if (r->ncmds && !r->cmds[r->ncmds - 1].output)
					r->cmds[r->ncmds - 1].output = sb_detach(&out);
				add_cmd(r, NULL, 0);
			}
			struct verdict_cmd *c = &r->cmds[r->ncmds - 1];
			c->has_exit = true;
			c->exit = code;
			r->exits++;
			if (code != 0)
				r->nonzero++;
			continue;
		}
		if (r->ncmds && !r->cmds[r->ncmds - 1].has_exit) {
			sb_add(&out, l->s, l->n);
			sb_addc(&out, '\n');
		}
	}
	if (r->ncmds && !r->cmds[r->ncmds - 1].output)
		r->cmds[r->ncmds - 1].output = sb_detach(&out);
	sb_free(&out);
}

static void parse_perf(struct verdict_reply *r, const struct line *lines, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct line *l = &lines[i];
		const char *eq = memchr(l->s, '=', l->n);
		if (!eq)
			continue;
		char *k = xstrndup(l->s, (size_t)(eq - l->s));
		char *v = xstrndup(eq + 1, l->n - (size_t)(eq - l->s) - 1);
		str_trim(k);
		str_trim(v);
		r->perf = xrealloc(r->perf, (r->nperf + 1) * sizeof(*r->perf));
		r->perf[r->nperf++] = (struct verdict_kv){k, v};
	}
}

static void parse_deferred(struct verdict_reply *r, const struct line *l)
{
	size_t i = skip_decor(l, 0);
	static const char kw[] = "deferred:";
	if (r->deferred || l->n - i < sizeof(kw) - 1 || strncasecmp(l->s + i, kw, sizeof(kw) - 1) != 0)
		return;
	char *rest = xstrndup(l->s + i + sizeof(kw) - 1, l->n - i - (sizeof(kw) - 1));
	for (char *p = rest; *p; p++)
		if (*p == ';' || *p == ' ' || *p == '\t' || *p == '`' || *p == '*')
			*p = ',';
	r->deferred = str_split(rest, ',', false, NULL);
	free(rest);
}

void verdict_parse(const char *text, size_t len, char *const *vocab, struct verdict_reply *r)
{
	memset(r, 0, sizeof(*r));
	size_t n;
	struct line *lines = split_lines(text, len, &n);
	size_t bs = SIZE_MAX, be = SIZE_MAX, ps = SIZE_MAX, pe = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (bs == SIZE_MAX && line_has(&lines[i], "<VALIDATOR_OUTPUT>"))
			bs = i;
		else if (bs != SIZE_MAX && be == SIZE_MAX && line_has(&lines[i], "</VALIDATOR_OUTPUT>"))
			be = i;
		if (ps == SIZE_MAX && line_has(&lines[i], "<PERF_LOG>"))
			ps = i;
		else if (ps != SIZE_MAX && pe == SIZE_MAX && line_has(&lines[i], "</PERF_LOG>"))
			pe = i;
	}
	r->has_block = bs != SIZE_MAX;
	r->block_closed = be != SIZE_MAX;

	/* An unclosed block runs to the last VERDICT line (the protocol puts
	 * the verdict last), else to the end of the reply. */
	size_t last_verdict = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		char *v = verdict_of(&lines[i]);
		if (v)
			last_verdict = i;
		free(v);
	}
	size_t block_end = be;
	if (r->has_block && !r->block_closed)
		block_end = last_verdict != SIZE_MAX && last_verdict > bs ? last_verdict : n;

	/* Which VERDICT line counts: the protocol puts it right after the
	 * block, so prefer an enumerated one there, then one before the block,
	 * then one inside it (a validator's own VERDICT line), then any. */
	enum { BEFORE, INSIDE, AFTER };
	size_t chosen = SIZE_MAX;
	for (int pass = 0; pass < 4 && chosen == SIZE_MAX; pass++) {
		for (size_t i = 0; i < n && chosen == SIZE_MAX; i++) {
			char *v = verdict_of(&lines[i]);
			if (!v)
				continue;
			int where = AFTER;
			if (r->has_block)
				where = i <= bs ? BEFORE : (i < block_end ? INSIDE : AFTER);
			bool enumerated = in_vocab(vocab, v);
			static const int want[] = {AFTER, BEFORE, INSIDE};
			if (pass == 3 || (enumerated && where == want[pass])) {
				chosen = i;
				r->verdict = v;
				r->enumerated = enumerated;
				r->verdict_line = (int)i + 1;
			} else {
				free(v);
			}
		}
	}
	if (r->has_block)
		parse_block(r, lines, bs + 1, block_end == SIZE_MAX ? n : block_end, chosen);
	if (ps != SIZE_MAX) {
		r->has_perf_log = true;
		parse_perf(r, lines, ps + 1, pe == SIZE_MAX ? n : pe);
	}
	for (size_t i = 0; i < n; i++) {
		bool in_block = r->has_block && i > bs && i < (block_end == SIZE_MAX ? n : block_end);
		if (!in_block)
			parse_deferred(r, &lines[i]);
	}
	if (chosen != SIZE_MAX) {
		for (size_t i = chosen + 1; i < n && !r->trailing_text; i++) {
			struct line l = lines[i];
			size_t k = 0;
			while (k < l.n && strchr(" \t`", l.s[k]))
				k++;
			r->trailing_text = k < l.n;
		}
	}
	free(lines);
}

void verdict_reply_free(struct verdict_reply *r)
{
	free(r->verdict);
	for (size_t i = 0; i < r->ncmds; i++) {
		free(r->cmds[i].command);
		free(r->cmds[i].output);
	}
	free(r->cmds);
	for (size_t i = 0; i < r->nperf; i++) {
		free(r->perf[i].key);
		free(r->perf[i].value);
	}
	free(r->perf);
	strv_free(r->deferred);
	memset(r, 0, sizeof(*r));
}

static bool nonzero_allowed(const struct stage_def *s, const char *verdict, const char *cmd, int code)
{
	for (size_t i = 0; i < s->nnonzero; i++) {
		const struct gate_nonzero *g = &s->nonzero[i];
		if (strcmp(g->verdict, verdict) != 0 || !cmd || !strstr(cmd, g->command))
			continue;
		bool listed = g->nexits == 0;
		for (int k = 0; k < g->nexits; k++)
			listed |= g->exits[k] == code;
		if (listed)
			return true;
	}
	return false;
}

void verdict_gate(const struct table *t, const struct stage_def *s, const struct verdict_reply *r,
		  const char *text, bool offline, struct gate_result *out)
{
	out->outcome = GATE_REPAIR;
	out->reason[0] = '\0';
	if (!r->verdict) {
		snprintf(out->reason, sizeof(out->reason), "no VERDICT line in the reply");
		return;
	}
	if (!stage_has_verdict(s, r->verdict, offline)) {
		snprintf(out->reason, sizeof(out->reason), "VERDICT %s is not a verdict of stage %c",
			 r->verdict, s->letter);
		return;
	}
	if (r->has_block) {
		if (r->exits == 0) {
			snprintf(out->reason, sizeof(out->reason),
				 "<VALIDATOR_OUTPUT> has no parseable exit=N line");
			return;
		}
		for (size_t i = 0; i < r->ncmds; i++) {
			const struct verdict_cmd *c = &r->cmds[i];
			if (c->has_exit && c->exit != 0 && !nonzero_allowed(s, r->verdict, c->command, c->exit)) {
				snprintf(out->reason, sizeof(out->reason), "validator block shows exit=%d for %.160s",
					 c->exit, c->command ? c->command : "(no command line)");
				return;
			}
		}
		out->outcome = GATE_ACCEPT;
		snprintf(out->reason, sizeof(out->reason), "validator block: %d exit code(s), all accepted",
			 r->exits);
		return;
	}
	bool clean = false;
	for (size_t i = 0; t->clean_success && t->clean_success[i]; i++)
		clean |= strcmp(t->clean_success[i], r->verdict) == 0;
	if (!clean) {
		snprintf(out->reason, sizeof(out->reason),
			 "no <VALIDATOR_OUTPUT> block and %s is not a clean success verdict", r->verdict);
		return;
	}
	for (size_t i = 0; t->bad_words && t->bad_words[i]; i++) {
		if (strstr(text, t->bad_words[i])) {
			snprintf(out->reason, sizeof(out->reason),
				 "no <VALIDATOR_OUTPUT> block and the reply mentions '%s'", t->bad_words[i]);
			return;
		}
	}
	out->outcome = GATE_ACCEPT_SOFT_MISSING;
	snprintf(out->reason, sizeof(out->reason), "no validator block; clean %s accepted (soft)",
		 r->verdict);
}

char *owner_tag_read(const char *path, const char *key)
{
	size_t len;
	char *text = read_file(path, &len, NULL);
	if (!text)
		return NULL;
	size_t n;
	struct line *lines = split_lines(text, len, &n);
	size_t kl = strlen(key);
	char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		const struct line *l = &lines[i];
		size_t k = skip_decor(l, 0);
		if (l->n - k < kl || strncasecmp(l->s + k, key, kl) != 0)
			continue;
		k += kl;
		while (k < l->n && strchr("*_` \t", l->s[k]))
			k++;
		if (k >= l->n || l->s[k] != ':')
			continue;
		k++;
		while (k < l->n && strchr("*_` \t", l->s[k]))
			k++;
		size_t j = k;
		while (j < l->n && (isalnum((unsigned char)l->s[j]) || l->s[j] == '_'))
			j++;
		/* The first tag line decides, even when it is empty. */
		if (j > k) {
			found = xstrndup(l->s + k, j - k);
			for (char *p = found; *p; p++)
				*p = (char)tolower((unsigned char)*p);
		}
		break;
	}
	free(lines);
	free(text);
	return found;
}

char *report_first_verdict(const char *path)
{
	size_t len;
	char *text = read_file(path, &len, NULL);
	if (!text)
		return NULL;
	size_t n;
	struct line *lines = split_lines(text, len, &n);
	char *v = NULL;
	if (n) {
		struct line l = lines[0];
		if (l.n >= 3 && (unsigned char)l.s[0] == 0xEF && (unsigned char)l.s[1] == 0xBB &&
		    (unsigned char)l.s[2] == 0xBF)
			l.s += 3, l.n -= 3;
		v = verdict_of(&l);
	}
	free(lines);
	free(text);
	return v;
}

char *verdict_unsupported(const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		size_t k = strspn(p, " \t");
		if (n > k && !strncmp(p + k, "unsupported:", 12))
			return xstrndup(p + k, n - k);
		p += n + (nl ? 1 : 0);
	}
	return NULL;
}
