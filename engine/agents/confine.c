#include "engine/agents/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/agents/guard.h"

static int add_root(struct confine *c, const char *path, bool writable, const char *label, struct tp_err *err)
{
	char buf[PATH_MAX];
	if (!realpath(path, buf)) {
		tp_err_set(err, TP_EXIT_ENV, "%s %s: %s", label, path, strerror(errno));
		return -1;
	}
	int fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s %s: %s", label, buf, strerror(errno));
		return -1;
	}
	c->roots[c->n++] = (struct confine_root){xstrdup(buf), xstrdup(path), fd, writable, label};
	return 0;
}

int confine_init(struct confine *c, const char *run_dir, const char *workspace, const char *skill,
		 struct tp_err *err)
{
	memset(c, 0, sizeof(*c));
	if (add_root(c, run_dir, true, "run directory", err) < 0 ||
	    (workspace && add_root(c, workspace, true, "workspace", err) < 0) ||
	    (skill && path_is_dir(skill) && add_root(c, skill, false, "skill", err) < 0)) {
		confine_free(c);
		return -1;
	}
	c->protected_dir = path_join(c->roots[0].real, ".tileport");
	char *writable[CONFINE_ROOTS_MAX + 1] = {0};
	for (int i = 0, k = 0; i < c->n; i++)
		if (c->roots[i].writable)
			writable[k++] = c->roots[i].real;
	c->guarded = guard_paths(writable);
	return 0;
}

void confine_free(struct confine *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->roots[i].real);
		free(c->roots[i].given);
		close(c->roots[i].fd);
	}
	free(c->protected_dir);
	strv_free(c->guarded);
	memset(c, 0, sizeof(*c));
}

/* "a" is "b" or lies under it. */
static bool under(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (n == 1 && b[0] == '/')
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0');
}

static const char *rest_after(const char *path, const char *root)
{
	if (!under(path, root))
		return NULL;
	const char *r = path + strlen(root);
	while (*r == '/')
		r++;
	return *r ? r : ".";
}

/* The root an agent's path belongs to, and the path relative to it. */
static const struct confine_root *pick_root(const struct confine *c, const char *path, const char **rel)
{
	if (path[0] != '/') {
		*rel = path;
		return &c->roots[0];
	}
	const struct confine_root *best = NULL;
	size_t best_len = 0;
	for (int i = 0; i < c->n; i++) {
		const char *names[] = {c->roots[i].real, c->roots[i].given};
		for (size_t k = 0; k < 2; k++) {
			const char *r = rest_after(path, names[k]);
			if (r && strlen(names[k]) > best_len) {
				best = &c->roots[i];
				best_len = strlen(names[k]);
				*rel = r;
			}
		}
	}
	return best;
}

static int check_shape(const char *path, struct tp_err *err)
{
	size_t n = strlen(path);
	if (!n) {
		tp_err_set(err, TP_EXIT_USAGE, "an empty path");
		return -1;
	}
	if (n >= PATH_MAX) {
		tp_err_set(err, TP_EXIT_USAGE, "a path of %zu bytes (the limit is %d)", n, PATH_MAX - 1);
		return -1;
	}
	for (const char *p = path; *p;) {
		size_t k = strcspn(p, "/");
		if (k > NAME_MAX) {
			tp_err_set(err, TP_EXIT_USAGE, "%.40s...: a path component of %zu bytes (the limit is %d)",
				   path, k, NAME_MAX);
			return -1;
		}
		p += k;
		p += strspn(p, "/");
	}
	return 0;
}

static long sys_openat2(int dirfd, const char *path, struct open_how *how)
{
	return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
}

/* The component walk: no "..", no symlink anywhere on the way. */
static int walk_open(int rootfd, const char *rel, int flags, mode_t mode)
{
	char **parts = str_split(rel, '/', false, NULL);
	size_t n = strv_len(parts);
	/* the last component that names something ("." names the folder it is in) */
	size_t last = n;
	for (size_t i = 0; i < n; i++)
		if (strcmp(parts[i], "."))
			last = i;
	int dir = dup(rootfd), fd = -1;
	for (size_t i = 0; i < n && dir >= 0; i++) {
		if (!strcmp(parts[i], "."))
			continue;
		if (!strcmp(parts[i], "..")) {
			errno = EXDEV;
			break;
		}
		int f = i == last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		int next = openat(dir, parts[i], f, mode);
		if (next < 0 && (errno == ENOTDIR || errno == ELOOP)) {
			struct stat sb;
			if (fstatat(dir, parts[i], &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
				errno = ELOOP;
		}
		if (i == last) {
			fd = next;
			break;
		}
		int e = errno;
		close(dir);
		dir = next;
		errno = e;
	}
	if (last == n && dir >= 0) /* nothing but "." */
		fd = openat(dir, ".", flags | O_CLOEXEC, mode);
	int e = errno;
	if (dir >= 0)
		close(dir);
	strv_free(parts);
	errno = e;
	return fd;
}

static int open_beneath(const struct confine *c, int rootfd, const char *rel, int flags, mode_t mode)
{
	if (!c->no_openat2) {
		/* O_PATH takes no flags but these; the kernel refuses others */
		int extra = (flags & O_PATH) ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
		struct open_how how = {.flags = (unsigned)(flags | extra),
				       .mode = (flags & O_CREAT) ? mode : 0,
				       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
		long fd = sys_openat2(rootfd, rel, &how);
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
	}
	return walk_open(rootfd, rel, flags, mode);
}

static char *fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static void refuse_escape(struct tp_err *err, const char *path, const struct confine_root *r)
{
	tp_err_set(err, TP_EXIT_USAGE, "%s: leads outside the %s (through '..' or a symlink); refused", path,
		   r->label);
}

static bool is_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

static int open_error(struct tp_err *err, const char *path, const struct confine_root *r)
{
	int e = errno;
	if (e == EXDEV || e == ELOOP)
		refuse_escape(err, path, r);
	else
		tp_err_set(err, TP_EXIT_USAGE, "%s: %s", path, strerror(e));
	return -1;
}

static const char *protected_why = "is tileport's own state (.tileport/), not writable";

/* A write: the folder is resolved and checked before anything is opened
 * (O_CREAT and O_TRUNC act at the open), and the last component is opened
 * from it without following a symlink. */
static int open_for_write(const struct confine *c, const struct confine_root *r, const char *path,
			  const char *rel, int flags, mode_t mode, struct tp_err *err)
{
	const char *slash = strrchr(rel, '/');
	char *dir = slash ? xstrndup(rel, (size_t)(slash - rel)) : xstrdup(".");
	const char *name = slash ? slash + 1 : rel;
	if (!*dir) {
		free(dir);
		dir = xstrdup(".");
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		free(dir);
		tp_err_set(err, TP_EXIT_USAGE, "%s: names a folder, not a file", path);
		return -1;
	}
	int dfd = open_beneath(c, r->fd, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	if (dfd < 0)
		return open_error(err, path, r);
	char *where = fd_path(dfd);
	char *target = where ? path_join(where, name) : NULL;
	const char *why = !where || !under(where, r->real) ? "resolves outside its root"
			  : under(where, c->protected_dir) ||
					  (!strcmp(where, r->real) && r == &c->roots[0] && !strcmp(name, ".tileport"))
				  ? protected_why
				  : guard_why(c->guarded, r->real, target);
	free(target);
	free(where);
	if (why) {
		close(dfd);
		tp_err_set(err, TP_EXIT_USAGE, "%s: %s; refused", path, why);
		return -1;
	}
	/* truncate only once the file is known to be this tree's own */
	int fd = openat(dfd, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0 && errno == ELOOP)
		errno = EXDEV; /* a symlink as the file itself: not followed */
	int e = errno;
	close(dfd);
	errno = e;
	if (fd < 0)
		return open_error(err, path, r);
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink > 1) {
		/* a hard link may be a file from anywhere on the same disk */
		close(fd);
		tp_err_set(err, TP_EXIT_USAGE, "%s: has %ju hard links, so it may be a file outside the %s; "
					       "refused", path, (uintmax_t)sb.st_nlink, r->label);
		return -1;
	}
	if ((flags & O_TRUNC) && ftruncate(fd, 0) < 0) {
		close(fd);
		return open_error(err, path, r);
	}
	return fd;
}

int confine_open(const struct confine *c, const char *path, int flags, mode_t mode, char **real,
		 struct tp_err *err)
{
	if (real)
		*real = NULL;
	if (check_shape(path, err) < 0)
		return -1;
	const char *rel = NULL;
	const struct confine_root *r = pick_root(c, path, &rel);
	if (!r) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: outside the run directory and the workspace (paths are "
					       "relative to %s, or absolute under it or the workspace)",
			   path, c->roots[0].real);
		return -1;
	}
	bool write = is_write(flags);
	if (write && !r->writable) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: the %s is read-only", path, r->label);
		return -1;
	}
	int fd = write ? open_for_write(c, r, path, rel, flags, mode, err) : open_beneath(c, r->fd, rel, flags, mode);
	if (fd < 0)
		return write ? -1 : open_error(err, path, r);
	/* Belt and braces: where the descriptor really is. */
	char *where = fd_path(fd);
	const char *why = !where || !under(where, r->real) ? "resolves outside its root"
			  : write && under(where, c->protected_dir) ? protected_why
			  : write ? guard_why(c->guarded, r->real, where) : NULL;
	if (why) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: %s; refused", path, why);
		close(fd);
		free(where);
		return -1;
	}
	if (real)
		*real = where;
	else
		free(where);
	return fd;
}

int confine_mkparents(const struct confine *c, const char *path, struct tp_err *err)
{
	if (check_shape(path, err) < 0)
		return -1;
	const char *rel = NULL;
	const struct confine_root *r = pick_root(c, path, &rel);
	if (!r)
		return 0; /* confine_open says why */
	char **parts = str_split(rel, '/', false, NULL);
	size_t n = strv_len(parts);
	struct sbuf pre = SBUF_INIT;
	int rc = 0;
	for (size_t i = 0; i + 1 < n && rc == 0; i++) {
		size_t before = pre.len;
		sb_printf(&pre, "%s%s", before ? "/" : "", parts[i]);
		int fd = open_beneath(c, r->fd, pre.buf, O_PATH | O_DIRECTORY, 0);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno != ENOENT || !r->writable || !strcmp(parts[i], "..")) {
			rc = -1;
			break;
		}
		char *parent = xstrndup(pre.buf, before);
		int pfd = before ? open_beneath(c, r->fd, parent, O_PATH | O_DIRECTORY, 0) : dup(r->fd);
		free(parent);
		char *where = pfd >= 0 ? fd_path(pfd) : NULL;
		char *made = where ? path_join(where, parts[i]) : NULL;
		bool own = where && (under(where, c->protected_dir) ||
				     (r == &c->roots[0] && !strcmp(where, r->real) && !strcmp(parts[i], ".tileport")));
		const char *guard = made && !own ? guard_why(c->guarded, r->real, made) : NULL;
		free(made);
		free(where);
		if (own || guard) {
			close(pfd);
			tp_err_set(err, TP_EXIT_USAGE, "%s: %s; refused", path, own ? protected_why : guard);
			strv_free(parts);
			sb_free(&pre);
			return -1;
		}
		if (pfd < 0 || (mkdirat(pfd, parts[i], 0755) < 0 && errno != EEXIST))
			rc = -1;
		if (pfd >= 0)
			close(pfd);
	}
	if (rc < 0 && (errno == EXDEV || errno == ELOOP))
		refuse_escape(err, path, r);
	else if (rc < 0)
		tp_err_set(err, TP_EXIT_USAGE, "%s: cannot create its folder %s: %s", path, sb_str(&pre),
			   strerror(errno));
	sb_free(&pre);
	strv_free(parts);
	return rc;
}
