/* Landlock through its three system calls (glibc has no wrappers). */
#include "engine/core/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
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

int sandbox_ruleset(char *const *dirs, struct tp_err *err)
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
	for (size_t i = 0; dirs && dirs[i]; i++)
		if (allow(rs, dirs[i], write_access(abi), err) < 0)
			goto fail;
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
