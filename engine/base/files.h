/* Safe file access (docs/reliability.md, "Files"): the one way tileport
 * opens what it reads and what it writes, so that a FIFO never hangs a
 * reader, a symlink planted in a run directory is never followed, a device
 * named as an output is written through rather than replaced, and a NUL
 * byte in a text input is an error instead of the end of the text. */
#ifndef TILEPORT_CORE_FILES_H
#define TILEPORT_CORE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/base/util.h"

/* A run file (inside RUN/.tileport/): a symbolic link at the path is
 * refused instead of followed. */
#define FILE_NOFOLLOW 1

/* What a file that is not a regular file is, in words ("a directory",
 * "a FIFO", "a symbolic link" ...). */
const char *file_kind_name(mode_t mode);

/* Open a file to read. Regular files only: anything else is refused with
 * "PATH: is a FIFO, not a regular file" (exit 2). The open is non-blocking,
 * so a FIFO or a device is refused without waiting for a writer. */
int file_open_read(const char *path, int flags, struct tp_err *err);

/* Open a file to write (O_APPEND or O_TRUNC in `how`), created 0644 when
 * missing; never through a symbolic link, regular files only (exit 3). */
int file_open_write(const char *path, int how, struct tp_err *err);

/* The byte offset of the first NUL in data, or -1. */
long text_nul_at(const char *data, size_t len);

/* read_file for a file that must be text: a NUL byte is an error naming
 * the file and the byte offset (exit 2). */
char *read_text_file(const char *path, size_t *len, struct tp_err *err);

/* Write an output that the user named (a report, a saved screen). A
 * character or block device or a FIFO is written through; a symbolic link,
 * a directory or a socket is refused; a new file, or a regular one of ours
 * with no other hard link, is replaced atomically (temp, fsync, rename);
 * another regular file (another user's, or hard-linked) is rewritten in
 * place, keeping its owner and its links. */
int write_output(const char *path, const void *data, size_t len, struct tp_err *err);

/* Parse a whole JSON document read from path (NUL-terminated, len bytes):
 * a syntax error is "PATH:LINE:COL: malformed JSON", data after the value
 * is "PATH:LINE:COL: unexpected data after the JSON value" (exit 2). */
struct cJSON;
struct cJSON *json_parse_doc(const char *path, const char *text, size_t len, struct tp_err *err);
/* Line and column (1-based) of byte offset `at` in text. */
void text_line_col(const char *text, size_t at, int *line, int *col);

/* Flush standard output and report whether everything written to it
 * arrived: -1 with "cannot write to standard output: REASON" (exit 3). */
int stdout_flush_check(struct tp_err *err);

/* Whole files. read_file returns a NUL-terminated buffer (len excludes the NUL); regular
 * files only, opened without blocking (a FIFO is refused, not waited on). */
char *read_file(const char *path, size_t *len, struct tp_err *err);
/* The same with FILE_NOFOLLOW (files.h) for a run file: a link is refused. */
char *read_file_flags(const char *path, size_t *len, int flags, struct tp_err *err);
/* Write temp file, fsync, rename over `path`, fsync the directory. The temp
 * file is created exclusively, never through a link. */
int write_file_atomic(const char *path, const void *data, size_t len, struct tp_err *err);
/* Truncate or append; never through a symbolic link, regular files only. */
int write_file(const char *path, const void *data, size_t len, struct tp_err *err);
int append_file(const char *path, const void *data, size_t len, struct tp_err *err);
/* The last complete line of a file (within its last 8 KiB), without its
 * newline; NULL when there is none. A line still being written is not
 * one. Caller frees. */
char *file_last_line(const char *path);

#endif
