/* Internals shared by session.c (the session), run_model.c (one run, live
 * or followed) and run_json.c (its JSON form). Not a public header. */
#ifndef TILEPORT_CORE_SESSION_INT_H
#define TILEPORT_CORE_SESSION_INT_H

#include "engine/core/session.h"

struct session {
	struct config cfg; /* the user's file, then the workspace's */
	size_t nuser;      /* cfg.v[0 .. nuser) came from the user's file */
	char *workspace, *out_root, *table_path;
	char *secret_vars; /* every file's secret_vars, joined */
	char **secret_files; /* NAME=PATH of the key files the user config names */
	bool out_root_default; /* WORKSPACE/cutile_kernel_out: nothing named another */
	struct stage_commands cmdline;
	char *own[STAGE_LETTERS]; /* --driver specs with relative programs made absolute */
	bool read_only;
	bool ask;
	bool fresh;
	bool again;
	pipeline_checker checker;
	const struct driver_catalog *catalog;
	struct loop *loop;
	bool own_loop;
	struct table **tables; /* loaded once per path, for followed runs */
	size_t ntables;
};

/* Options for a pipeline of this session: table, commands, checker (and
 * workspace and output root for a new run). */
void session_pipeline_opts(const struct session *s, enum run_origin origin,
			   struct pipeline_opts *out);
/* The table at path, loaded once per session. */
const struct table *session_table(struct session *s, const char *path, struct tp_err *err);

#endif
