#include "engine/agents/handover.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/lines.h"

#define HANDOVER_LINE_MAX ((size_t)16 << 20)

char *handover_prompt(const struct agent_ctx *ctx, int n, const char *from, const char *final,
		      struct tp_err *err)
{
	size_t len;
	char *prompt = read_file(ctx->prompt_path, &len, err);
	if (!prompt)
		return NULL;
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "HAND-OVER. The driver before you in this stage's chain, %s, did not finish "
		       "stage %c and handed it to you within the same attempt. Its final message:\n\n"
		       "```\n%s\n```\n\n",
		  from, ctx->stage, final);
	if (strstr(final, "\npartial: ") || str_starts(final, "partial: "))
		sb_adds(&sb, "It translated part of the operator: the `partial:` line says what kernel.rs "
			     "already holds and the `left:` lines which kernels are missing, where, and "
			     "why. Keep the kernels kernel.rs holds as they are (they compile); write only "
			     "the kernels on the `left:` lines into the same #[cutile::module], then "
			     "finish the stage as the procedure below says (its validators judge the "
			     "whole kernel.rs). Do not translate the other kernels again.\n\n");
	else
		sb_adds(&sb, "Its `unsupported:` line names what it could not do (FILE:LINE:COL and the "
			     "construct); files it wrote are in the run directory. Do the stage as the "
			     "procedure below says, starting from there.\n\n");
	sb_adds(&sb, "---\n\n");
	sb_add(&sb, prompt, len);
	free(prompt);
	char *name = xasprintf("prompt.handover-%d.md", n);
	char *path = path_join(ctx->attempt_dir, name);
	free(name);
	int rc = write_file_atomic(path, sb_str(&sb), sb.len, err);
	sb_free(&sb);
	if (rc < 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* ---- exec:COMMAND as a chain's last link ---- */

struct exec_link {
	struct agent_ctx *ctx;
	struct lines out, err;
	bool done;
	struct proc_status st;
	int plain;           /* -1 not known yet, 1 plain text, 0 JSON records */
	bool final;          /* it gave a final record */
	struct sbuf gathered; /* its text, the final message when it gave none */
};

/* As the orchestrator reads an exec driver (transcript.h): JSON records go
 * on through the recorder (and its secret filter), a plain-text stdout is
 * the final message as a whole, and a stream without a final record gets
 * one gathered from its text. The final is the chain's to commit. */
static void out_line(const char *line, size_t n, void *ud)
{
	struct exec_link *s = ud;
	if (s->plain < 0 && strspn(line, " \t\r") == n)
		return;
	cJSON *o = s->plain == 1 ? NULL : cJSON_ParseWithLength(line, n);
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
	bool record = cJSON_IsObject(o) && cJSON_IsString(type);
	if (s->plain < 0)
		s->plain = !record;
	if (!record) {
		cJSON_Delete(o);
		sb_add(&s->gathered, line, n);
		sb_addc(&s->gathered, '\n');
		if (!s->plain) {
			char *text = xstrndup(line, n);
			rec_text(s->ctx->rec, text);
			free(text);
		}
		return;
	}
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
	if (!strcmp(type->valuestring, "final")) {
		rec_final(s->ctx->rec, cJSON_IsString(text) ? text->valuestring : "");
		s->final = true;
		cJSON_Delete(o);
		return;
	}
	if (!strcmp(type->valuestring, "text") && cJSON_IsString(text))
		sb_printf(&s->gathered, "%s\n", text->valuestring);
	rec_emit(s->ctx->rec, o);
}

static void err_line(const char *line, size_t n, void *ud)
{
	(void)ud;
	fprintf(stderr, "%.*s\n", (int)n, line);
}

static void on_out(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	lines_feed(&((struct exec_link *)ud)->out, d, n, out_line, ud);
}

static void on_err(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	lines_feed(&((struct exec_link *)ud)->err, d, n, err_line, ud);
}

static void on_exit_(struct proc *p, const struct proc_status *st, void *ud)
{
	struct exec_link *s = ud;
	(void)p;
	lines_flush(&s->out, out_line, s);
	lines_flush(&s->err, err_line, s);
	s->st = *st;
	s->done = true;
}

static bool should_stop(void *ud)
{
	return ((struct exec_link *)ud)->ctx->stop;
}

int handover_exec(struct agent_ctx *ctx, const char *command)
{
	char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
	char **env = env_current();
	env_set(&env, "TILEPORT_PROMPT", ctx->prompt_path);
	struct exec_link s = {ctx, {SBUF_INIT, HANDOVER_LINE_MAX}, {SBUF_INIT, 0}, false, {0}, -1, false,
			      SBUF_INIT};
	struct proc_opts o = {.argv = argv, .env = env, .cwd = ctx->workspace,
			      .kill_grace_ms = ctx->kill_grace_ms, .command_log = ctx->command_log,
			      .parent_death_signal = SIGTERM, .on_stdout = on_out, .on_stderr = on_err,
			      .on_exit = on_exit_, .ud = &s};
	struct tp_err err;
	struct proc *p = proc_spawn(ctx->loop, &o, &err);
	strv_free(env);
	if (!p) {
		rec_error(ctx->rec, "exec:%s: %s", command, err.msg);
		return TP_EXIT_ENV;
	}
	proc_wait(ctx->loop, p, &s.done, should_stop, &s);
	proc_free(p);
	lines_free(&s.out);
	lines_free(&s.err);
	if (!s.final)
		rec_final(ctx->rec, sb_str(&s.gathered));
	sb_free(&s.gathered);
	if (s.st.end != PROC_EXITED) {
		char why[128];
		proc_status_str(&s.st, why, sizeof(why));
		rec_error(ctx->rec, "exec:%s: %s", command, why);
		return TP_EXIT_FAILED;
	}
	return s.st.code;
}
