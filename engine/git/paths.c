/* Where the six files of an op live, and which other paths a conversion
 * touches, so that packaging can tell the op's changes from the user's
 * unrelated work (docs/changeset.md: "The six files", "The op's changes,
 * and the rest"). */
#include <stdlib.h>
#include <string.h>

#include "engine/git/cs_int.h"

#define RS_DIR "src/tilegym/ops/cutile_rs/"

/* A role's path is head, then the op and tail when tail is set. */
static const struct {
	const char *name, *help, *head, *tail;
} roles[] = {
	[CS_ROLE_KERNEL] = {"kernel", "device kernel module (stage B)", RS_DIR, "_kernel/kernel.rs"},
	[CS_ROLE_FFI] = {"ffi", "C-ABI launcher (stage D)", RS_DIR, "_kernel/ffi.rs"},
	[CS_ROLE_WRAPPER] = {"wrapper", "Python wrapper registering the cutile-rs backend (stage D)",
			     RS_DIR, ".py"},
	[CS_ROLE_LIB] = {"lib.rs", "the crate's mod block for the op (stage D)",
			 RS_DIR "cutile_kernels/src/lib.rs", NULL},
	[CS_ROLE_IMPORT] = {"import", "the backend's import of the wrapper (stage D)", RS_DIR "__init__.py",
			    NULL},
	[CS_ROLE_TEST] = {"test", "the cutile-rs parametrisation of the op's tests (stage D)",
			  "tests/ops/test_", ".py"},
	[CS_ROLE_OTHER] = {"other", "not part of a six-file changeset", NULL, NULL},
};

const char *cs_role_name(enum cs_role r)
{
	return roles[r].name;
}

const char *cs_role_help(enum cs_role r)
{
	return roles[r].help;
}

char *cs_role_path(enum cs_role r, const char *op)
{
	if (r == CS_ROLE_OTHER)
		return NULL;
	if (!roles[r].tail)
		return xstrdup(roles[r].head);
	return xasprintf("%s%s%s", roles[r].head, op, roles[r].tail);
}

bool cs_op_name_ok(const char *op)
{
	if (!op || !*op || strlen(op) > 64 || (*op >= '0' && *op <= '9'))
		return false;
	for (const char *p = op; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return false;
	return true;
}

/* tests/ops/[SUB/...]test_OP.py: an operator in a subfolder has its test in
 * the same subfolder (engine/base/operator.h). */
static bool test_path(const char *rel, const char *op)
{
	if (!str_starts(rel, "tests/ops/") || !str_ends(rel, ".py"))
		return false;
	const char *base = strrchr(rel, '/') + 1;
	size_t ol = strlen(op);
	return str_starts(base, "test_") && strlen(base) == 5 + ol + 3 && !strncmp(base + 5, op, ol) &&
	       !strstr(rel, "/../") && !strstr(rel, "//");
}

enum cs_role cs_path_role(const char *path, const char *prefix, const char *op)
{
	size_t pl = strlen(prefix);
	if (!op || strncmp(path, prefix, pl) != 0)
		return CS_ROLE_OTHER;
	if (test_path(path + pl, op))
		return CS_ROLE_TEST;
	for (int r = 0; r < CS_NROLES; r++) {
		char *want = cs_role_path((enum cs_role)r, op);
		bool hit = !strcmp(path + pl, want);
		free(want);
		if (hit)
			return (enum cs_role)r;
	}
	return CS_ROLE_OTHER;
}

bool cs_in_op_area(const char *path, const char *prefix, const char *op)
{
	size_t pl = strlen(prefix);
	if (strncmp(path, prefix, pl) != 0)
		return false;
	const char *rel = path + pl;
	if (str_starts(rel, "src/tilegym/backend/") || !strcmp(rel, "src/tilegym/ops/__init__.py"))
		return true;
	if (!str_starts(rel, RS_DIR))
		return false;
	const char *rest = rel + strlen(RS_DIR);
	const char *slash = strchr(rest, '/');
	size_t ol = strlen(op);
	/* Another op's kernel folder or wrapper is that op's business. */
	if (slash && slash - rest > 7 && !strncmp(slash - 7, "_kernel", 7))
		return (size_t)(slash - 7 - rest) == ol && !strncmp(rest, op, ol);
	if (!slash && str_ends(rest, ".py") && strcmp(rest, "__init__.py") != 0)
		return strlen(rest) == ol + 3 && !strncmp(rest, op, ol);
	return true;
}

bool cs_kernel_path_op(const char *path, char **prefix, char **op)
{
	static const char tail[] = "_kernel/kernel.rs";
	const char *at = strstr(path, RS_DIR);
	if (!at || !str_ends(path, tail))
		return false;
	const char *name = at + strlen(RS_DIR);
	size_t n = strlen(name) - strlen(tail);
	if (!n || memchr(name, '/', n))
		return false;
	*op = xstrndup(name, n);
	*prefix = xstrndup(path, (size_t)(at - path));
	return true;
}

char *cs_reference_path(const char *prefix, const char *sub, const char *op, int which)
{
	static const char *const dirs[] = {"cutile", "triton"};
	if (which < 0 || which >= (int)TP_ARRAY_LEN(dirs))
		return NULL;
	if (sub && *sub)
		return xasprintf("%ssrc/tilegym/ops/%s/%s/%s.py", prefix, dirs[which], sub, op);
	return xasprintf("%ssrc/tilegym/ops/%s/%s.py", prefix, dirs[which], op);
}
