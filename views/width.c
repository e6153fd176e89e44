#include "views/width.h"

#include <stdint.h>

size_t utf8_next(const char *s, size_t n, wchar_t *wc)
{
	const unsigned char *u = (const unsigned char *)s;
	if (n == 0) {
		*wc = 0;
		return 0;
	}
	unsigned c = u[0];
	size_t len;
	uint32_t cp, min;
	if (c < 0x80) {
		*wc = (wchar_t)c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		len = 2, cp = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3, cp = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4, cp = c & 0x07, min = 0x10000;
	} else {
		*wc = 0xfffd;
		return 1;
	}
	if (len > n) {
		*wc = 0xfffd;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*wc = 0xfffd;
			return 1;
		}
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	/* Overlong forms, surrogates and out-of-range values are invalid. */
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*wc = 0xfffd;
		return 1;
	}
	*wc = (wchar_t)cp;
	return len;
}

int wc_columns(wchar_t wc)
{
	if (wc < 0x20 || wc == 0x7f)
		return 1;
	int w = wcwidth(wc);
	if (w < 0)
		return 1;
	return w > 2 ? 2 : w;
}

static size_t char_cols(wchar_t wc, size_t at)
{
	if (wc == '\t')
		return TAB_SIZE - at % TAB_SIZE;
	return (size_t)wc_columns(wc);
}

size_t str_columns(const char *s, size_t n, size_t start)
{
	size_t col = start;
	for (size_t i = 0; i < n;) {
		wchar_t wc;
		i += utf8_next(s + i, n - i, &wc);
		col += char_cols(wc, col);
	}
	return col - start;
}

size_t str_fit(const char *s, size_t n, size_t cols, size_t start, size_t *used)
{
	size_t col = 0, i = 0;
	while (i < n) {
		wchar_t wc;
		size_t len = utf8_next(s + i, n - i, &wc);
		size_t w = char_cols(wc, start + col);
		if (col + w > cols)
			break;
		col += w;
		i += len;
	}
	if (used)
		*used = col;
	return i;
}

size_t str_skip(const char *s, size_t n, size_t cols, size_t *over)
{
	size_t col = 0, i = 0;
	*over = 0;
	while (i < n && col < cols) {
		wchar_t wc;
		size_t len = utf8_next(s + i, n - i, &wc);
		size_t w = char_cols(wc, col);
		i += len;
		col += w;
	}
	if (col > cols)
		*over = col - cols;
	return i;
}
