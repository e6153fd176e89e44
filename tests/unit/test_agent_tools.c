/* The built-in agent's tools and their confinement. The escape battery
 * runs twice: through openat2, and through the component walk used where
 * the kernel has none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/agents/tools.h"
#include "engine/base/files.h"
#include "engine/base/sandbox.h"
#include "engine/base/util.h"
#include "tests/unit/testutil.h"

struct fx {
	char *top, *run, *ws, *skill;
	struct loop *loop;
	struct tools t;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	f->top = tu_tmpdir();
	f->run = path_join(f->top, "run");
	f->ws = path_join(f->top, "ws");
	f->skill = path_join(f->top, "skill");
	free(tu_write(f->run, ".tileport/state.json", "{}\n"));
	free(tu_write(f->run, "kernel.rs", "line 1\nline 2\nline 3\n"));
	free(tu_write(f->run, "sub/keep", ""));
	free(tu_write(f->ws, "src/op.py", "def op():\n    pass\n"));
	free(tu_write(f->skill, "SKILL.md", "# skill\n"));
	free(tu_write(f->top, "secret.txt", "top secret\n"));
	char *p = path_join(f->run, "out_link");
	assert_int_equal(symlink("../secret.txt", p), 0);
	free(p);
	p = path_join(f->run, "abs_link");
	assert_int_equal(symlink("/etc", p), 0);
	free(p);
	p = path_join(f->run, "in_link");
	assert_int_equal(symlink("kernel.rs", p), 0);
	free(p);
	f->loop = loop_new();
	struct tp_err err;
	assert_int_equal(tools_init(&f->t, f->run, f->ws, f->skill, f->loop, &err), 0);
	f->t.kill_grace_ms = 100;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tools_free(&f->t);
	loop_free(f->loop);
	remove_tree(f->top);
	free(f->top);
	free(f->run);
	free(f->ws);
	free(f->skill);
	free(f);
	return 0;
}

/* Run a tool; returns its output (static storage until the next call). */
static const char *call(struct fx *f, const char *name, const char *args, bool *is_error)
{
	static char *last;
	struct tool_result r;
	tools_exec(&f->t, name, args, &r);
	free(last);
	last = r.output;
	*is_error = r.is_error;
	return last;
}

static void expect_refused(struct fx *f, const char *name, const char *args, const char *why)
{
	bool err;
	const char *out = call(f, name, args, &err);
	if (!err || !strstr(out, why))
		fail_msg("%s %s: expected a refusal with '%s', got: %s", name, args, why, out);
}

static void expect_ok(struct fx *f, const char *name, const char *args, const char *has)
{
	bool err;
	const char *out = call(f, name, args, &err);
	if (err || !strstr(out, has))
		fail_msg("%s %s: expected '%s', got: %s", name, args, has, out);
}

static void battery(struct fx *f)
{
	char args[8192];
	expect_refused(f, "read_file", "{\"path\":\"../secret.txt\"}", "leads outside");
	expect_refused(f, "read_file", "{\"path\":\"sub/../../secret.txt\"}", "leads outside");
	expect_refused(f, "read_file", "{\"path\":\"/etc/passwd\"}", "outside the run directory and the workspace");
	snprintf(args, sizeof(args), "{\"path\":\"%s/secret.txt\"}", f->top);
	expect_refused(f, "read_file", args, "outside the run directory");
	expect_refused(f, "read_file", "{\"path\":\"out_link\"}", "leads outside");
	expect_refused(f, "read_file", "{\"path\":\"abs_link/passwd\"}", "leads outside");
	expect_refused(f, "write_file", "{\"path\":\"abs_link/x\",\"content\":\"x\"}", "leads outside");
	expect_refused(f, "write_file", "{\"path\":\"out_link\",\"content\":\"x\"}", "leads outside");
	expect_refused(f, "list_dir", "{\"path\":\"abs_link\"}", "leads outside");
	expect_refused(f, "edit_file", "{\"path\":\"out_link\",\"old_text\":\"top\",\"new_text\":\"x\"}", "leads outside");
	expect_refused(f, "read_file", "{\"path\":\"kernel.rs\\u0000/../../secret.txt\"}", "NUL byte");
	expect_refused(f, "write_file", "{\"path\":\".tileport/state.json\",\"content\":\"{}\"}", "tileport's own state");
	expect_refused(f, "write_file", "{\"path\":\".tileport/new.json\",\"content\":\"{}\"}", "tileport's own state");
	expect_refused(f, "write_file", "{\"path\":\".tileport/sub/new.json\",\"content\":\"{}\"}", "tileport's own state");
	expect_refused(f, "write_file", "{\"path\":\".tileport\",\"content\":\"{}\"}", "tileport's own state");
	expect_refused(f, "edit_file", "{\"path\":\".tileport/state.json\",\"old_text\":\"{}\",\"new_text\":\"[]\"}",
		       "tileport's own state");
	/* (the walk refuses any "..", so it says so instead) */
	expect_refused(f, "write_file", "{\"path\":\"sub/../.tileport/state.json\",\"content\":\"{}\"}",
		       f->t.conf.no_openat2 ? "leads outside" : "tileport's own state");
	/* a refused write changed nothing: not even a truncation or a new folder */
	char *st = path_join(f->run, ".tileport/state.json");
	char *st_text = read_file(st, NULL, NULL);
	assert_string_equal(st_text, "{}\n");
	free(st_text);
	free(st);
	char *sub = path_join(f->run, ".tileport/sub");
	assert_false(path_is_dir(sub));
	free(sub);
	char *nj = path_join(f->run, ".tileport/new.json");
	assert_false(path_is_file(nj));
	free(nj);
	snprintf(args, sizeof(args), "{\"path\":\"%s/SKILL.md\",\"content\":\"x\"}", f->skill);
	expect_refused(f, "write_file", args, "the skill is read-only");
	struct sbuf longp = SBUF_INIT;
	sb_adds(&longp, "{\"path\":\"");
	for (int i = 0; i < 2100; i++)
		sb_adds(&longp, "a/");
	sb_adds(&longp, "x\"}");
	expect_refused(f, "read_file", longp.buf, "the limit is");
	sb_reset(&longp);
	sb_adds(&longp, "{\"path\":\"");
	for (int i = 0; i < 300; i++)
		sb_addc(&longp, 'n');
	sb_adds(&longp, "\"}");
	expect_refused(f, "read_file", longp.buf, "a path component of 300 bytes");
	sb_free(&longp);
	/* what is allowed still works */
	expect_ok(f, "read_file", "{\"path\":\"kernel.rs\",\"end_line\":1}", "lines 1-1 of 3");
	snprintf(args, sizeof(args), "{\"path\":\"%s/src/op.py\"}", f->ws);
	expect_ok(f, "read_file", args, "def op()");
	snprintf(args, sizeof(args), "{\"path\":\"%s/SKILL.md\"}", f->skill);
	expect_ok(f, "read_file", args, "# skill");
	snprintf(args, sizeof(args), "{\"path\":\"%s/new/dir/f.txt\",\"content\":\"hi\"}", f->ws);
	expect_ok(f, "write_file", args, "wrote");
	/* a symlink whose target stays inside is followed by openat2 only */
	bool err;
	const char *out = call(f, "read_file", "{\"path\":\"in_link\"}", &err);
	assert_true(f->t.conf.no_openat2 ? err && strstr(out, "leads outside") : !err && strstr(out, "line 1"));
	/* nothing escaped */
	char *secret = path_join(f->top, "secret.txt");
	char *text = read_file(secret, NULL, NULL);
	assert_string_equal(text, "top secret\n");
	free(text);
	free(secret);
}

static void test_battery_openat2(void **state)
{
	struct fx *f = *state;
	battery(f);
}

static void test_battery_walk(void **state)
{
	struct fx *f = *state;
	f->t.conf.no_openat2 = true;
	battery(f);
}

static void test_hard_link_made_by_a_command(void **state)
{
	struct fx *f = *state;
	char args[4096];
	snprintf(args, sizeof(args), "{\"cmd\":\"ln %s/secret.txt hard && echo made\"}", f->top);
	if (sandbox_abi() >= 2) {
		/* Landlock refuses a link from a folder the command may not write */
		expect_refused(f, "run_command", args, "Invalid cross-device link");
		/* made behind its back: the file tools still refuse it */
		char *src = path_join(f->top, "secret.txt"), *dst = path_join(f->run, "hard");
		assert_int_equal(link(src, dst), 0);
		free(src);
		free(dst);
	} else {
		expect_ok(f, "run_command", args, "made");
	}
	expect_refused(f, "write_file", "{\"path\":\"hard\",\"content\":\"x\"}", "has 2 hard links");
	expect_refused(f, "edit_file", "{\"path\":\"hard\",\"old_text\":\"top\",\"new_text\":\"x\"}",
		       "has 2 hard links");
	char *secret = path_join(f->top, "secret.txt");
	char *text = read_file(secret, NULL, NULL);
	assert_string_equal(text, "top secret\n");
	free(text);
	free(secret);
}

static void test_symlink_made_by_a_command(void **state)
{
	struct fx *f = *state;
	expect_ok(f, "run_command", "{\"cmd\":\"ln -s / root && mkdir d && ln -s ../.. d/up && echo made\"}", "made");
	expect_refused(f, "read_file", "{\"path\":\"root/etc/passwd\"}", "leads outside");
	expect_refused(f, "write_file", "{\"path\":\"d/up/escaped.txt\",\"content\":\"x\"}", "leads outside");
	char *p = path_join(f->top, "escaped.txt");
	assert_false(path_is_file(p));
	free(p);
}

static void test_read_paging(void **state)
{
	struct fx *f = *state;
	struct sbuf sb = SBUF_INIT;
	for (int i = 1; i <= 1200; i++)
		sb_printf(&sb, "row %d\n", i);
	free(tu_write(f->run, "big.txt", sb.buf));
	sb_free(&sb);
	expect_ok(f, "read_file", "{\"path\":\"big.txt\"}", "lines 1-500 of 1200 (read on with start_line=501)");
	expect_ok(f, "read_file", "{\"path\":\"big.txt\",\"start_line\":\"1190\"}", "lines 1190-1200 of 1200\n  1190\trow 1190");
	expect_ok(f, "read_file", "{\"path\":\"big.txt\",\"start_line\":5000}", "line 5000 is past the end");
	expect_refused(f, "read_file", "{\"path\":\"missing.txt\"}", "No such file");
	expect_refused(f, "read_file", "{\"path\":\".\"}", "is a folder");
}

static void test_edit_exactly_once(void **state)
{
	struct fx *f = *state;
	free(tu_write(f->run, "e.rs", "a = 1;\nb = 1;\n"));
	expect_refused(f, "edit_file", "{\"path\":\"e.rs\",\"old_text\":\"= 1;\",\"new_text\":\"= 2;\"}", "occurs 2 times");
	expect_refused(f, "edit_file", "{\"path\":\"e.rs\",\"old_text\":\"c = 1;\",\"new_text\":\"\"}", "occurs 0 times");
	expect_ok(f, "edit_file", "{\"path\":\"e.rs\",\"old_text\":\"b = 1;\",\"new_text\":\"b = 22;\"}", "at line 2");
	char *p = path_join(f->run, "e.rs");
	char *text = read_file(p, NULL, NULL);
	assert_string_equal(text, "a = 1;\nb = 22;\n");
	free(text);
	free(p);
}

static void test_list_and_errors(void **state)
{
	struct fx *f = *state;
	expect_ok(f, "list_dir", "{}", ".tileport/\nabs_link@\nin_link@\nkernel.rs\nout_link@\nsub/\n");
	expect_refused(f, "nope", "{}", "no tool named 'nope'");
	expect_refused(f, "read_file", "[1]", "not a JSON object");
	expect_refused(f, "read_file", "{}", "needs a string 'path'");
}

static void test_command_timeout_and_output(void **state)
{
	struct fx *f = *state;
	int64_t t0 = now_ms();
	bool err;
	const char *out = call(f, "run_command", "{\"cmd\":\"sleep 30 & echo bg; exec sleep 30\",\"timeout_s\":1}", &err);
	assert_true(err);
	assert_non_null(strstr(out, "exit=124 (timed out after 1 s; its process group was killed)"));
	assert_non_null(strstr(out, "bg"));
	assert_true(now_ms() - t0 < 10000);
	out = call(f, "run_command", "{\"cmd\":\"seq 1 20000; echo tail-end >&2; exit 3\"}", &err);
	assert_true(err);
	assert_true(str_starts(out, "exit=3\n1\n2\n"));
	assert_non_null(strstr(out, " bytes elided ...]"));
	assert_non_null(strstr(out, "20000\ntail-end\n"));
	assert_true(strlen(out) < 17000);
	/* the command log hides the secrets the tools were given */
	char *log = path_join(f->top, "commands.log");
	char *secrets[] = {"LLM_API_KEY=sk-from-a-key-file-42", NULL};
	f->t.command_log = log;
	f->t.secrets = secrets;
	out = call(f, "run_command", "{\"cmd\":\"echo sk-from-a-key-file-42\"}", &err);
	assert_string_equal(out, "exit=0\n${LLM_API_KEY}\n");
	char *logged = read_file(log, NULL, NULL);
	assert_non_null(strstr(logged, "'echo ${LLM_API_KEY}'"));
	assert_null(strstr(logged, "sk-from-a-key-file-42"));
	free(logged);
	free(log);
	f->t.command_log = NULL;
	f->t.secrets = NULL;
	/* commands run in the run directory, without the environment's keys */
	setenv("TILEPORT_TEST_API_KEY", "sk-unit-test-0123456789", 1);
	struct tools t2;
	struct tp_err e;
	assert_int_equal(tools_init(&t2, f->run, f->ws, NULL, f->loop, &e), 0);
	struct tool_result r;
	tools_exec(&t2, "run_command", "{\"cmd\":\"pwd; echo key=${TILEPORT_TEST_API_KEY:-none}\"}", &r);
	char *real = realpath(f->run, NULL);
	assert_non_null(strstr(r.output, real));
	assert_non_null(strstr(r.output, "key=none"));
	free(real);
	tool_result_free(&r);
	tools_free(&t2);
	unsetenv("TILEPORT_TEST_API_KEY");
}

/* Commands change files only beneath the run directory and the workspace
 * (Landlock); llm.confine_commands = off lifts it. */
static void test_command_confined(void **state)
{
	struct fx *f = *state;
	if (!sandbox_abi()) {
		print_message("skip: this kernel has no Landlock\n");
		expect_refused(f, "run_command", "{\"cmd\":\"true\"}", "llm.confine_commands = off");
		return;
	}
	char args[4096];
	snprintf(args, sizeof(args), "{\"cmd\":\"echo x > %s/outside.txt\"}", f->top);
	expect_refused(f, "run_command", args, "Permission denied");
	snprintf(args, sizeof(args), "{\"cmd\":\"rm %s/secret.txt\"}", f->top);
	expect_refused(f, "run_command", args, "Permission denied");
	char *p = path_join(f->top, "outside.txt");
	assert_false(path_is_file(p));
	free(p);
	p = path_join(f->top, "secret.txt");
	assert_true(path_is_file(p));
	free(p);
	expect_ok(f, "run_command", "{\"cmd\":\"echo in > inside.txt && cat inside.txt\"}", "exit=0\nin\n");
	snprintf(args, sizeof(args), "{\"cmd\":\"echo w > %s/src/new.py && echo wrote\"}", f->ws);
	expect_ok(f, "run_command", args, "wrote");
	/* temporary files go with the run; devices can be written */
	expect_ok(f, "run_command", "{\"cmd\":\"mktemp >/dev/null && echo $TMPDIR\"}", "/.tileport/tmp\n");
	/* off: the user's choice */
	strv_free(f->t.write_roots);
	f->t.write_roots = NULL;
	snprintf(args, sizeof(args), "{\"cmd\":\"echo x > %s/outside.txt && echo unconfined\"}", f->top);
	expect_ok(f, "run_command", args, "unconfined");
}

/* What git runs code from is read-only to the tools and to commands: the
 * workspace's .git (a hook, core.fsmonitor in its config), the folder
 * core.hooksPath names, a file include.path names, another version
 * control's folder, and a new .git anywhere (issue 26). */
static void test_vcs_metadata_read_only(void **state)
{
	struct fx *f = *state;
	git_libgit2_init();
	git_repository *repo;
	git_config *cfg;
	assert_int_equal(git_repository_init(&repo, f->ws, 0), 0);
	assert_int_equal(git_repository_config(&cfg, repo), 0);
	assert_int_equal(git_config_set_string(cfg, "core.hooksPath", "tools/hooks"), 0);
	assert_int_equal(git_config_set_string(cfg, "include.path", "../shared.gitconfig"), 0);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(tu_write(f->ws, "tools/hooks/README", "hooks\n"));
	free(tu_write(f->ws, "shared.gitconfig", "[user]\n\tname = x\n"));
	free(tu_write(f->ws, "README.md", "readme\n"));
	free(tu_write(f->ws, "third/.hg/hgrc", "[hooks]\n"));
	char *lnk = path_join(f->ws, "src/gitlink");
	assert_int_equal(symlink("../.git", lnk), 0);
	free(lnk);
	char *cfg_path = path_join(f->ws, ".git/config");
	char *before = read_file(cfg_path, NULL, NULL);
	tools_free(&f->t);
	struct tp_err err;
	assert_int_equal(tools_init(&f->t, f->run, f->ws, f->skill, f->loop, &err), 0);
	f->t.kill_grace_ms = 100;
	char args[8192];
	const char *writes[] = {".git/hooks/post-commit", ".git/config", "src/gitlink/hooks/pre-commit",
				"tools/hooks/post-commit", "shared.gitconfig", "third/.hg/hgrc"};
	for (size_t i = 0; i < TP_ARRAY_LEN(writes); i++) {
		snprintf(args, sizeof(args), "{\"path\":\"%s/%s\",\"content\":\"echo planted\"}", f->ws, writes[i]);
		expect_refused(f, "write_file", args, "read-only to agents");
	}
	snprintf(args, sizeof(args), "{\"path\":\"%s/.git/config\",\"old_text\":\"[core]\","
		 "\"new_text\":\"[core]\\n\\tfsmonitor = touch /tmp/x\"}", f->ws);
	expect_refused(f, "edit_file", args, "read-only to agents");
	/* no new repository either, in the workspace or the run directory */
	snprintf(args, sizeof(args), "{\"path\":\"%s/src/.git/config\",\"content\":\"x\"}", f->ws);
	expect_refused(f, "write_file", args, "none may be made");
	expect_refused(f, "write_file", "{\"path\":\"sub/.git/HEAD\",\"content\":\"x\"}", "none may be made");
	expect_refused(f, "write_file", "{\"path\":\".hg\",\"content\":\"x\"}", "none may be made");
	/* reading is not refused, nor is writing beside it */
	snprintf(args, sizeof(args), "{\"path\":\"%s/.git/config\"}", f->ws);
	expect_ok(f, "read_file", args, "[core]");
	snprintf(args, sizeof(args), "{\"path\":\"%s/src/new.py\",\"content\":\"x = 1\"}", f->ws);
	expect_ok(f, "write_file", args, "wrote");
	snprintf(args, sizeof(args), "{\"path\":\"%s/.gitignore\",\"content\":\"target/\"}", f->ws);
	expect_ok(f, "write_file", args, "wrote");
	if (sandbox_abi()) {
		/* commands: the kernel refuses what the tools refuse */
		snprintf(args, sizeof(args),
			 "{\"cmd\":\"cd %s && for f in .git/hooks/post-commit tools/hooks/pre-push shared.gitconfig "
			 "third/.hg/hgrc; do echo x > $f || echo refused $f; done; echo '[core] fsmonitor = x' >> "
			 ".git/config || echo refused config; mv .git g || echo refused mv; touch new-top || "
			 "echo refused top; echo x > src/ok.py && echo >> README.md && echo wrote\"}", f->ws);
		bool e;
		const char *o = call(f, "run_command", args, &e);
		const char *what[] = {"refused .git/hooks/post-commit", "refused tools/hooks/pre-push",
				      "refused shared.gitconfig", "refused third/.hg/hgrc", "refused config",
				      "refused mv", "refused top", "wrote"};
		for (size_t i = 0; i < TP_ARRAY_LEN(what); i++)
			if (!strstr(o, what[i]))
				fail_msg("expected '%s' in: %s", what[i], o);
		/* the command log says what was left out */
		char *log = path_join(f->top, "commands.log");
		f->t.command_log = log;
		expect_ok(f, "run_command", "{\"cmd\":\"true\"}", "exit=0");
		char *logged = read_file(log, NULL, NULL);
		assert_non_null(strstr(logged, "/ws/.git"));
		assert_non_null(strstr(logged, "not beneath"));
		free(logged);
		free(log);
		f->t.command_log = NULL;
	}
	char *after = read_file(cfg_path, NULL, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(cfg_path);
	char *hook = path_join(f->ws, ".git/hooks/post-commit");
	assert_false(path_is_file(hook));
	free(hook);
	char *tool_hook = path_join(f->ws, "tools/hooks/post-commit");
	assert_false(path_is_file(tool_hook));
	free(tool_hook);
}

static void test_json_nul(void **state)
{
	(void)state;
	assert_true(json_has_nul("{\"p\":\"a\\u0000b\"}"));
	assert_false(json_has_nul("{\"p\":\"a\\\\u0000b\"}")); /* an escaped backslash, then text */
	assert_true(json_has_nul("{\"p\":\"\\\\\\u0000\"}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_battery_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_battery_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_made_by_a_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_made_by_a_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_exactly_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_timeout_and_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_confined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcs_metadata_read_only, setup, teardown),
		cmocka_unit_test(test_json_nul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
