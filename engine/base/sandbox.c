/* Landlock through its three system calls (glibc has no wrappers). */
#include "engine/base/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Every access that changes the file system, as each ABI version adds
 * them; reads and directory listing are left alone. */
static __u64 write_access(int abi)
{
	__u64 a = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		  LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
		  LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
		  LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
		  LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
	if (abi >= 2) /* linking or renaming a file into another folder */
		a |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
	if (abi >= 3)
		a |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
	return a;
}

int sandbox_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

/* What a rule on a file may allow: writing it (and truncating it), nothing
 * that makes, removes or renames an entry. */
static __u64 file_access(int abi)
{
	__u64 a = LANDLOCK_ACCESS_FS_WRITE_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
	if (abi >= 3)
		a |= LANDLOCK_ACCESS_FS_TRUNCATE;
#else
	(void)abi;
#endif
	return a;
}

/* "a" is "b" or lies beneath it. */
static bool beneath(const char *a, const char *b)
{
	size_t n = strlen(b);
	while (n > 1 && b[n - 1] == '/')
		n--;
	if (n == 1 && b[0] == '/')
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0');
}

struct grants {
	char **dirs, **files;
	size_t nd, cd, nf, cf;
};

static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
	*v = xgrow(*v, cap, *n + 2, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static void expand(struct grants *g, const char *dir, char *const *except)
{
	bool holds = false;
	for (size_t i = 0; except && except[i]; i++) {
		if (beneath(dir, except[i]))
			return;
		holds |= beneath(except[i], dir);
	}
	if (!holds) {
		push(&g->dirs, &g->nd, &g->cd, dir);
		return;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path = path_join(dir, e->d_name);
		struct stat sb;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(sb.st_mode)) {
				expand(g, path, except);
			} else if (S_ISREG(sb.st_mode)) {
				bool out = false;
				for (size_t i = 0; except && except[i]; i++)
					out |= beneath(path, except[i]);
				if (!out)
					push(&g->files, &g->nf, &g->cf, path);
			}
		}
		free(path);
	}
	if (d)
		closedir(d);
}

char **sandbox_grants(char *const *dirs, char *const *except, char ***files)
{
	struct grants g = {0};
	for (size_t i = 0; dirs && dirs[i]; i++)
		expand(&g, dirs[i], except);
	if (files)
		*files = g.files ? g.files : xcalloc(1, sizeof(char *));
	else
		strv_free(g.files);
	return g.dirs ? g.dirs : xcalloc(1, sizeof(char *));
}

static int allow(int ruleset, const char *dir, __u64 access, struct tp_err *err)
{
	int fd = open(dir, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot confine commands to it: %s", dir, strerror(errno));
		return -1;
	}
	struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
	long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	int e = errno;
	close(fd);
	if (rc < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: Landlock refused the rule: %s", dir, strerror(e));
		return -1;
	}
	return 0;
}

/* A file found by sandbox_grants: a link put in its place since is not
 * followed, and one that cannot be granted is simply not writable. */
static void allow_file(int ruleset, const char *path, __u64 access)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
		(void)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	}
	if (fd >= 0)
		close(fd);
}

int sandbox_ruleset(char *const *dirs, char *const *except, struct tp_err *err)
{
	int abi = sandbox_abi();
	if (!abi) {
		tp_err_set(err, TP_EXIT_ENV, "this kernel has no Landlock (Linux 5.13 or later with "
			   "CONFIG_SECURITY_LANDLOCK, and landlock in its lsm= list), so commands "
			   "cannot be confined to the run directory and the workspace");
		return -1;
	}
	struct landlock_ruleset_attr attr = {.handled_access_fs = write_access(abi)};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0) {
		tp_err_set(err, TP_EXIT_ENV, "landlock_create_ruleset: %s", strerror(errno));
		return -1;
	}
	char **files = NULL;
	char **grant = sandbox_grants(dirs, except, &files);
	for (size_t i = 0; grant[i]; i++)
		if (allow(rs, grant[i], write_access(abi), err) < 0) {
			strv_free(grant);
			strv_free(files);
			goto fail;
		}
	for (size_t i = 0; files[i]; i++)
		allow_file(rs, files[i], file_access(abi));
	strv_free(grant);
	strv_free(files);
	/* /dev/null, /dev/tty and the like: writing to a device, never making one */
	if (allow(rs, "/dev", LANDLOCK_ACCESS_FS_WRITE_FILE, err) < 0)
		goto fail;
	/* the descriptor crosses fork; exec closes it */
	if (fcntl(rs, F_SETFD, FD_CLOEXEC) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "fcntl: %s", strerror(errno));
		goto fail;
	}
	return rs;
fail:
	close(rs);
	return -1;
}

int sandbox_enter(int ruleset_fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_landlock_restrict_self, ruleset_fd, 0) < 0 ? -1 : 0;
}
