/* The run model: a live run (the pipeline on the session's loop, its
 * events and the stages' output lines in one stream, tokens and cost per
 * attempt, stage and run; a re-validation by hand that runs on the loop),
 * a run followed from disk while a second process writes it (appended and
 * torn events, a replaced state.json, its lock taken), and the one JSON
 * form against a golden file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/core/events.h"
#include "engine/core/session.h"
#include "tests/unit/testutil.h"

/* The repository, absolute: agents run in the workspace, and one test
 * changes directory. */
static const char *top(void)
{
	static char buf[4096];
	const char *t = getenv("TILEPORT_TOP");
	if (!buf[0] && !realpath(t ? t : ".", buf))
		fail_msg("no repository at %s", t ? t : ".");
	return buf;
}

/* A copy of a hand-written fixture run: dir/out/NAME. */
static void fixture_run(const char *dir, const char *name)
{
	char *cmd = xasprintf("mkdir -p '%s/out' && cp -R '%s/tests/fixtures/tui-runs/%s' '%s/out/'", dir,
			      top(), name, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

struct seen {
	int changed, events, usage;
	char types[4096];  /* event types, space separated */
	char output[4096]; /* stages' stdout lines: "A1: line" */
};

static void record(struct run_model *m, const struct run_change *c, void *ud)
{
	struct seen *s = ud;
	(void)m;
	size_t n = strlen(s->types), k = strlen(s->output);
	if (c->kind == RUN_CHANGED) {
		s->changed++;
	} else if (c->kind == RUN_EVENT) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->ev, "type"));
		snprintf(s->types + n, sizeof(s->types) - n, "%s%s", n ? " " : "", t ? t : "?");
		s->events++;
	} else if (c->kind == RUN_USAGE) {
		s->usage++;
	} else if (!c->is_stderr) {
		snprintf(s->output + k, sizeof(s->output) - k, "%c%d: %.*s\n", c->attempt->stage,
			 c->attempt->n, (int)c->len, c->line);
	}
}

static struct session *open_session(const struct session_opts *o)
{
	struct session *s;
	struct tp_err err;
	if (session_open(&s, o, &err) < 0)
		fail_msg("%s", err.msg);
	return s;
}

static int setup(void **state)
{
	char *dir = tu_tmpdir();
	char *xdg = path_join(dir, "xdg");
	setenv("XDG_CONFIG_HOME", xdg, 1); /* no developer's config */
	setenv("TILEPORT_DATA_DIR", top(), 1);
	setenv("TILEPORT_GPU", "0", 1);
	unsetenv("CUTILE_KERNEL_OUT_ROOT");
	unsetenv("TILEGYM_PATH");
	free(xdg);
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	remove_tree(*state);
	free(*state);
	return 0;
}

/* ---- a live run ---- */

static void test_live_run(void **state)
{
	const char *dir = *state;
	char *scen = tu_write(dir, "scen", "A: PASS format=json\nB: FAIL_COMPILE\n");
	char *ws = path_join(top(), "samples/workspace");
	char *out = path_join(dir, "out");
	char *fake = xasprintf("exec:%s/tests/integration/lib/fake_agent.sh", top());
	setenv("FAKE_SCENARIO", scen, 1);
	struct session_opts o = {.workspace = ws, .out_root = out};
	for (char x = 'A'; x <= 'F'; x++) {
		o.commands.drivers[stage_slot(x)] = fake;
		o.commands.validators[stage_slot(x)] = "none";
	}
	struct session *s = open_session(&o);
	struct tp_err err;
	struct run_model *m = session_new_run(s, "softmax", &err);
	if (!m)
		fail_msg("%s", err.msg);
	struct pipeline *p = run_model_pipeline(m);
	assert_non_null(p);
	assert_true(run_model_driven(m));
	assert_null(run_model_why_read_only(m));
	/* what creating the run wrote before anyone listened is in the model */
	assert_int_equal(cJSON_GetArraySize(run_model_events(m)), 1);
	struct seen seen = {0};
	run_model_listen(m, record, &seen);
	pipeline_start(p);
	while (pipeline_busy(p))
		assert_true(loop_run_once(session_loop(s), -1) >= 0);

	assert_non_null(strstr(seen.types, "run_started drivers stage_started stage_ended verdict_read"));
	assert_non_null(strstr(seen.types, "routed run_finished"));
	assert_int_equal(cJSON_GetArraySize(run_model_events(m)), 1 + seen.events);
	/* the stages' own lines in the same stream, tagged with their attempt */
	assert_non_null(strstr(seen.output, "A1: {\"type\":\"usage\",\"tokens_in\":100"));
	assert_int_equal(seen.usage, 1); /* A's usage record moved its meter once */
	assert_non_null(strstr(seen.output, "B1: VERDICT: FAIL_COMPILE"));

	const struct attempt *b = run_model_latest(m, 'B');
	assert_non_null(b);
	assert_string_equal(b->verdict, "FAIL_COMPILE");
	assert_ptr_equal(run_model_attempt(m, b->seq), b);
	assert_null(run_model_latest(m, 'D'));
	assert_int_equal(run_model_state(m)->status, RUN_STOPPED);
	assert_string_equal(run_model_state_name(m), "stopped");
	/* usage: the JSON transcript's of A, none for B, the run's sum */
	struct run_usage ua = run_model_usage(m, 'A'), ub = run_model_usage(m, 'B');
	struct run_usage all = run_model_usage(m, 0);
	assert_int_equal(ua.tokens_in, 100);
	assert_int_equal(ua.tokens_out, 20);
	assert_true(fabs(ua.cost - 0.01) < 1e-9);
	assert_int_equal(ub.tokens_in, 0);
	assert_int_equal(all.tokens_in, 100);
	cJSON *j = run_model_to_json(m);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "path")), "A1 -> B1 -> STOP");
	cJSON *sa = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "stages"), "A");
	assert_int_equal(cJSON_GetObjectItem(sa, "tokens_in")->valueint, 100);
	assert_int_equal(cJSON_GetObjectItem(j, "tokens_out")->valueint, 20);
	cJSON_Delete(j);
	/* the artifacts of B, paths resolved in this run */
	struct run_artifact *art;
	size_t n = run_model_artifacts(m, b, &art);
	bool kernel = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(art[i].rel, "kernel.rs"))
			kernel = art[i].path[0] == '/' && !art[i].exists;
	assert_true(kernel); /* the fake agent wrote none */
	run_artifacts_free(art, n);
	run_model_unlisten(m, record, &seen);
	run_model_free(m);
	session_close(s);
	unsetenv("FAKE_SCENARIO");
	free(scen), free(ws), free(out), free(fake);
}

/* ---- re-validation by hand: a child on the loop ---- */

static void test_revalidate_on_the_loop(void **state)
{
	const char *dir = *state;
	fixture_run(dir, "softmax");
	char *run = xasprintf("%s/out/softmax", dir);
	char *fifo = path_join(dir, "gate");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* The validator waits for the test to open the gate; the bound only
	 * turns a validator that ran inline (a hang) into a failure. */
	char *cmd = xasprintf("timeout 60 cat '%s' >/dev/null; echo checked by hand; exit 1", fifo);
	struct session_opts o = {0};
	o.commands.validators[stage_slot('B')] = cmd;
	struct session *s = open_session(&o);
	struct tp_err err;
	struct run_model *m = session_run(s, run, &err);
	if (!m)
		fail_msg("%s", err.msg);
	assert_null(run_model_pipeline(m));
	assert_int_equal(run_model_attach(m, NULL, &err), 0);
	struct pipeline *p = run_model_pipeline(m);
	assert_non_null(p);
	struct seen seen = {0};
	run_model_listen(m, record, &seen);
	assert_int_equal(pipeline_revalidate(p, 2, &err), 0);
	assert_true(pipeline_busy(p)); /* started, not finished: the loop runs it */
	assert_null(strstr(seen.types, "manual_revalidate"));
	int fd = open(fifo, O_WRONLY); /* the validator is reading now */
	assert_true(fd >= 0);
	close(fd);
	while (pipeline_busy(p))
		assert_true(loop_run_once(session_loop(s), -1) >= 0);
	assert_non_null(strstr(seen.types, "manual_revalidate"));
	const struct attempt *b = run_model_attempt(m, 2);
	assert_int_equal(b->validator, VALIDATOR_FAIL);
	char *vtxt = run_model_attempt_path(m, b, "validator.txt");
	char *text = read_file(vtxt, NULL, NULL);
	assert_non_null(strstr(text, "checked by hand"));
	/* it records; it routes nothing */
	assert_int_equal(run_model_state(m)->status, RUN_COMPLETE);
	free(text), free(vtxt);
	run_model_free(m);
	session_close(s);
	free(run), free(fifo), free(cmd);
}

/* ---- followed from disk, while another process writes ---- */

/* The writer: a second process that does what it is told on `cmd`, one
 * letter at a time, and answers on `ack` when it is done. */
static void writer(const char *run, const char *cmd, const char *ack)
{
	int in = open(cmd, O_RDONLY), out = open(ack, O_WRONLY);
	char c;
	while (read(in, &c, 1) == 1) {
		char *ev = run_path(run, "events.jsonl");
		if (c == 'e') { /* one whole event */
			events_append(run, "from_afar", NULL, NULL, NULL);
		} else if (c == 'h') { /* half a line: a write in progress */
			const char *half = "{\"ts\":\"x\",\"t\":1,\"type\":\"ha";
			append_file(ev, half, strlen(half), NULL);
		} else if (c == 'H') { /* the rest of it */
			append_file(ev, "lf\"}\n", 5, NULL);
		} else if (c == 's') { /* state.json replaced: the run went on */
			struct run_state st;
			if (run_state_load(run, &st, NULL) == 0) {
				st.status = RUN_STOPPED;
				st.final = xstrdup("STOP");
				run_state_save(&st, NULL);
				run_state_free(&st);
			}
		} else if (c == 'l') { /* an orchestrator takes the run */
			run_lock(run, NULL);
		}
		free(ev);
		if (write(out, &c, 1) != 1)
			break;
	}
	_exit(0);
}

struct follower {
	struct run_model *m;
	struct loop *loop;
	int cmd, ack;
	struct seen seen;
};

/* Tell the writer, and wait until it says it is done. */
static void order(struct follower *f, char c)
{
	char a;
	assert_int_equal(write(f->cmd, &c, 1), 1);
	assert_int_equal(read(f->ack, &a, 1), 1);
	assert_int_equal(a, c);
}

/* Serve the loop until the reader has been told `n` more events. */
static void await_events(struct follower *f, int n)
{
	int want = f->seen.events + n;
	while (f->seen.events < want)
		assert_true(loop_run_once(f->loop, -1) >= 0);
}

static void test_follow_from_disk(void **state)
{
	const char *dir = *state;
	fixture_run(dir, "rmsnorm");
	char *run = xasprintf("%s/out/rmsnorm", dir);
	char *cmd = path_join(dir, "cmd"), *ack = path_join(dir, "ack");
	assert_int_equal(mkfifo(cmd, 0600), 0);
	assert_int_equal(mkfifo(ack, 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		writer(run, cmd, ack);

	struct session_opts o = {.read_only = true};
	struct session *s = open_session(&o);
	struct tp_err err;
	struct follower f = {.loop = session_loop(s)};
	f.m = session_run(s, run, &err);
	if (!f.m)
		fail_msg("%s", err.msg);
	f.cmd = open(cmd, O_WRONLY);
	f.ack = open(ack, O_RDONLY);
	struct run_model *m = f.m;
	int before = cJSON_GetArraySize(run_model_events(m));
	assert_true(before > 0);
	assert_string_equal(run_model_state_name(m), "interrupted");
	const struct attempt *d = run_model_latest(m, 'D');
	assert_false(run_model_running(m, d));
	assert_int_equal(run_model_attach(m, NULL, &err), -1); /* a read-only session */
	run_model_listen(m, record, &f.seen);

	order(&f, 'e');
	await_events(&f, 1);
	assert_string_equal(f.seen.types, "from_afar");

	/* a line still being written is not an event yet */
	order(&f, 'h');
	assert_int_equal(run_model_refresh(m, &err), 0);
	assert_int_equal(f.seen.events, 1);
	order(&f, 'H');
	await_events(&f, 1);
	assert_string_equal(f.seen.types, "from_afar half");
	assert_int_equal(cJSON_GetArraySize(run_model_events(m)), before + 2);

	/* a new state.json is read when it replaces the old one */
	order(&f, 's');
	int changed = f.seen.changed;
	while (f.seen.changed == changed)
		assert_true(loop_run_once(f.loop, -1) >= 0);
	assert_int_equal(run_model_state(m)->status, RUN_STOPPED);
	assert_string_equal(run_model_state(m)->final, "STOP");

	/* someone drives it now */
	assert_false(run_model_driven(m));
	order(&f, 'l');
	changed = f.seen.changed;
	while (f.seen.changed == changed)
		assert_true(loop_run_once(f.loop, -1) >= 0);
	assert_true(run_model_driven(m));

	close(f.cmd);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(f.ack);
	run_model_free(m);
	session_close(s);
	free(run), free(cmd), free(ack);
}

/* ---- the JSON form ---- */

static void test_json_golden(void **state)
{
	const char *dir = *state;
	fixture_run(dir, "softmax");
	char *golden = path_join(top(), "tests/fixtures/run-json/softmax.json");
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0); /* the run as "out/softmax", as a command names it */
	struct session *s = open_session(&(struct session_opts){.read_only = true});
	struct tp_err err;
	struct run_model *m = session_run(s, "out/softmax", &err);
	if (!m)
		fail_msg("%s", err.msg);
	cJSON *j = run_model_to_json(m);
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	run_model_free(m);
	session_close(s);
	assert_int_equal(chdir(cwd), 0);
	struct sbuf got = SBUF_INIT;
	sb_printf(&got, "%s\n", text);
	cJSON_free(text);
	if (getenv("TILEPORT_UPDATE_GOLDEN")) {
		assert_int_equal(write_file(golden, got.buf, got.len, NULL), 0);
	} else {
		char *want = read_file(golden, NULL, NULL);
		assert_non_null(want);
		if (strcmp(want, got.buf) != 0) {
			/* beside the test's log, where it outlives the test */
			char *at = path_join(cwd, "run-json-softmax.got");
			write_file(at, got.buf, got.len, NULL);
			fail_msg("run_model_to_json differs from %s (diff it with %s)", golden, at);
		}
		free(want);
	}
	sb_free(&got);
	free(golden);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revalidate_on_the_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_from_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_golden, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
