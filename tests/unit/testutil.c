#include "tests/unit/testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/util.h"

char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/tileport-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl))
		tp_die("mkdtemp failed");
	return tmpl;
}

char *tu_write(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	char *slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		mkdir_p(path, 0755, NULL);
		*slash = '/';
	}
	if (write_file(path, text, strlen(text), NULL) < 0)
		tp_die("cannot write %s", path);
	return path;
}

int tu_dir_setup(void **state)
{
	*state = tu_tmpdir();
	alarm(TU_ALARM_S);
	return 0;
}

int tu_dir_teardown(void **state)
{
	alarm(0);
	remove_tree(*state);
	free(*state);
	return 0;
}
