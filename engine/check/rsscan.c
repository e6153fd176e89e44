/* Just enough Rust lexing for the validators: blank comments (and string
 * contents) so that greps do not match commented-out code, find the
 * #[cutile::entry] functions with their parameter kinds, and the exported
 * extern "C" launcher. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* Length of the UTF-8 sequence starting with byte c (1 for bad bytes). */
static size_t utf8_len(unsigned char c)
{
	if (c >= 0xf0 && c < 0xf8)
		return 4;
	if (c >= 0xe0)
		return c < 0xf0 ? 3 : 1;
	if (c >= 0xc0)
		return 2;
	return 1;
}

static void blank_range(char *t, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (t[i] != '\n')
			t[i] = ' ';
}

/* End (exclusive) of a char literal starting at src[i] == '\'', or 0 when
 * it is a lifetime or label. */
static size_t char_literal_end(const char *src, size_t len, size_t i)
{
	size_t j = i + 1;
	if (j >= len)
		return 0;
	if (src[j] == '\\') {
		j += 2; /* the escape introducer and its first char */
		while (j < len && src[j] != '\'' && src[j] != '\n' && j - i < 16)
			j++;
		return j < len && src[j] == '\'' ? j + 1 : 0;
	}
	if (src[j] == '\'' || src[j] == '\n')
		return 0;
	j += utf8_len((unsigned char)src[j]);
	return j < len && src[j] == '\'' ? j + 1 : 0;
}

char *rs_blank(const char *src, size_t len, bool strings)
{
	char *t = xmalloc(len + 1);
	memcpy(t, src, len);
	t[len] = '\0';
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			size_t j = i;
			while (j < len && src[j] != '\n')
				j++;
			blank_range(t, i, j);
			i = j;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			size_t j = i + 2;
			int depth = 1;
			while (j < len && depth > 0) {
				if (src[j] == '/' && j + 1 < len && src[j + 1] == '*') {
					depth++;
					j += 2;
				} else if (src[j] == '*' && j + 1 < len && src[j + 1] == '/') {
					depth--;
					j += 2;
				} else {
					j++;
				}
			}
			blank_range(t, i, j);
			i = j;
		} else if (c == 'r' && (i == 0 || !is_ident(src[i - 1]) || (src[i - 1] == 'b' &&
				       (i < 2 || !is_ident(src[i - 2])))) &&
			   i + 1 < len && (src[i + 1] == '"' || src[i + 1] == '#')) {
			size_t j = i + 1, hashes = 0;
			while (j < len && src[j] == '#')
				hashes++, j++;
			if (j >= len || src[j] != '"') {
				i++;
				continue;
			}
			size_t body = ++j;
			for (; j < len; j++) {
				if (src[j] != '"')
					continue;
				size_t h = 0;
				while (h < hashes && j + 1 + h < len && src[j + 1 + h] == '#')
					h++;
				if (h == hashes)
					break;
			}
			if (strings)
				blank_range(t, body, j < len ? j : len);
			i = j < len ? j + 1 + hashes : len;
		} else if (c == '"') {
			size_t j = i + 1;
			while (j < len && src[j] != '"')
				j += src[j] == '\\' ? 2 : 1;
			if (j > len)
				j = len;
			if (strings)
				blank_range(t, i + 1, j);
			i = j + 1;
		} else if (c == '\'') {
			size_t end = char_literal_end(src, len, i);
			if (end) {
				if (strings)
					blank_range(t, i + 1, end - 1);
				i = end;
			} else {
				i++;
			}
		} else {
			i++;
		}
	}
	return t;
}

/* Skip a balanced group starting at t[i] == open; returns the index after
 * the closer, or len when unbalanced. `->` never closes an angle group. */
static size_t skip_group(const char *t, size_t len, size_t i, char open, char close)
{
	int depth = 0;
	for (; i < len; i++) {
		if (t[i] == open) {
			depth++;
		} else if (t[i] == close && !(close == '>' && i > 0 && t[i - 1] == '-')) {
			if (--depth == 0)
				return i + 1;
		}
	}
	return len;
}

static size_t skip_space(const char *t, size_t len, size_t i)
{
	while (i < len && isspace((unsigned char)t[i]))
		i++;
	return i;
}

/* Does the attribute starting at t[i] == '#' name cutile::entry? */
static bool is_entry_attr(const char *t, size_t len, size_t i)
{
	i = skip_space(t, len, i + 1);
	if (i >= len || t[i] != '[')
		return false;
	i = skip_space(t, len, i + 1);
	if (len - i < 6 || strncmp(t + i, "cutile", 6) != 0)
		return false;
	i = skip_space(t, len, i + 6);
	if (len - i < 2 || strncmp(t + i, "::", 2) != 0)
		return false;
	i = skip_space(t, len, i + 2);
	return len - i >= 5 && strncmp(t + i, "entry", 5) == 0 &&
	       (i + 5 >= len || !is_ident(t[i + 5]));
}

static bool param_matches(const char *params, const char *ere)
{
	return tx_search(params, ere, 0, NULL);
}

static bool primitive(const char *s, size_t n)
{
	static const char *const prims[] = {"f16", "bf16", "f32", "f64", "tf32", "i8", "i16",
					    "i32", "i64", "u8", "u16", "u32", "u64", "isize",
					    "usize", "bool"};
	for (size_t i = 0; i < TP_ARRAY_LEN(prims); i++)
		if (strlen(prims[i]) == n && strncmp(s, prims[i], n) == 0)
			return true;
	return false;
}

/* Raw pointer parameters, by what they point to. */
static void pointer_params(const char *params, struct rs_entry *e)
{
	for (const char *p = params; (p = strchr(p, '*')) != NULL;) {
		size_t i = skip_space(p, strlen(p), 1);
		size_t kw = strncmp(p + i, "mut", 3) == 0 ? 3 : strncmp(p + i, "const", 5) == 0 ? 5 : 0;
		if (!kw || !isspace((unsigned char)p[i + kw])) {
			p++;
			continue;
		}
		i = skip_space(p, strlen(p), i + kw);
		size_t n = 0;
		while (is_ident(p[i + n]))
			n++;
		if (primitive(p + i, n))
			e->prim_ptr = true;
		else
			e->ptr = true;
		p += i + n;
	}
}

size_t rs_entries(const char *src, size_t len, struct rs_entry **out)
{
	char *t = rs_blank(src, len, true);
	size_t n = 0, cap = 0;
	struct rs_entry *v = NULL;
	for (size_t i = 0; i < len; i++) {
		if (t[i] != '#' || !is_entry_attr(t, len, i))
			continue;
		size_t at = i;
		size_t j = skip_space(t, len, i + 1);
		j = skip_group(t, len, j, '[', ']');
		/* qualifiers and further attributes up to `fn NAME` */
		size_t name_at = 0;
		while (j < len) {
			j = skip_space(t, len, j);
			if (j >= len || t[j] == '{' || t[j] == ';' || t[j] == '}')
				break;
			if (t[j] == '#') {
				if (is_entry_attr(t, len, j))
					break;
				j = skip_group(t, len, skip_space(t, len, j + 1), '[', ']');
				continue;
			}
			if (t[j] == '(') {
				j = skip_group(t, len, j, '(', ')');
				continue;
			}
			if (is_ident(t[j])) {
				size_t w = j;
				while (j < len && is_ident(t[j]))
					j++;
				if (j - w == 2 && strncmp(t + w, "fn", 2) == 0) {
					name_at = skip_space(t, len, j);
					break;
				}
				continue;
			}
			j++;
		}
		if (!name_at || name_at >= len || !is_ident(t[name_at]))
			continue;
		size_t ne = name_at;
		while (ne < len && is_ident(t[ne]))
			ne++;
		size_t p = skip_space(t, len, ne);
		if (p < len && t[p] == '<')
			p = skip_space(t, len, skip_group(t, len, p, '<', '>'));
		if (p >= len || t[p] != '(')
			continue;
		size_t pe = skip_group(t, len, p, '(', ')');
		char *params = xstrndup(t + p, pe - p);
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].name = xstrndup(src + name_at, ne - name_at);
		v[n].line = tx_line_at(src, at);
		v[n].tensor = param_matches(
			params, "&[[:space:]]*('[A-Za-z_]+[[:space:]]+)?(mut[[:space:]]+)?Tensor[[:space:]]*<");
		v[n].ptr = v[n].prim_ptr = false;
		pointer_params(params, &v[n]);
		free(params);
		n++;
		i = pe ? pe - 1 : i;
	}
	free(t);
	*out = v;
	return n;
}

void rs_entries_free(struct rs_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

char *rs_extern_c_fn(const char *src, size_t len, int *line)
{
	char *t = rs_blank(src, len, false);
	regex_t re;
	if (regcomp(&re,
		    "(^|[^A-Za-z0-9_])pub[[:space:]]+(unsafe[[:space:]]+)?extern[[:space:]]+\"C\""
		    "[[:space:]]+fn[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\\(",
		    REG_EXTENDED) != 0)
		tp_die("check: extern fn pattern");
	regmatch_t m[4];
	char *name = NULL;
	if (regexec(&re, t, 4, m, 0) == 0) {
		name = xstrndup(t + m[3].rm_so, (size_t)(m[3].rm_eo - m[3].rm_so));
		if (line)
			*line = tx_line_at(t, (size_t)m[3].rm_so);
	}
	regfree(&re);
	free(t);
	return name;
}
