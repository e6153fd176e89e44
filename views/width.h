/* Screen widths of UTF-8 text, in columns (wcwidth), never bytes.
 * Invalid bytes and control characters count as one column: the renderer
 * shows them as U+FFFD / '?' so the arithmetic and the screen agree. */
#ifndef TILEPORT_VIEWS_WIDTH_H
#define TILEPORT_VIEWS_WIDTH_H

#include <stddef.h>
#include <wchar.h>

#define TAB_SIZE 8

/* Decode one character at s (n bytes available). Returns the bytes used
 * (>= 1 when n > 0); invalid input yields U+FFFD for one byte. */
size_t utf8_next(const char *s, size_t n, wchar_t *wc);
/* Columns one character takes: 0 for combining marks, 2 for wide ones,
 * 1 for controls and unknowns (they are drawn as a replacement). */
int wc_columns(wchar_t wc);
/* Columns of a string, tabs expanded from column `start`. */
size_t str_columns(const char *s, size_t n, size_t start);
/* How many bytes of s fit in `cols` columns starting at screen column
 * `start` (for tab stops); *used gets the columns they take. A wide
 * character that would straddle the limit is left out. */
size_t str_fit(const char *s, size_t n, size_t cols, size_t start, size_t *used);
/* Skip `cols` columns from the start of s; returns the bytes skipped.
 * *over gets how many columns of a wide character were cut in half (the
 * renderer pads them with blanks). */
size_t str_skip(const char *s, size_t n, size_t cols, size_t *over);

#endif
