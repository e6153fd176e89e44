/* Built-in stage drivers and the stage child that runs them
 * (`tileport agent --stage X --run DIR --driver D[,D2...]`).
 *
 * Drivers are listed once, in engine/agents/drivers.def, in the order the
 * defaults prefer them. Each has three hooks:
 *   probe    is it usable here (and if not, why not): `tileport drivers`
 *            and the default choice for a new run
 *   handles  does it take stage X of operator OP in this workspace, in an
 *            offline run or an online one (the default choice skips a
 *            driver for stages it does not handle)
 *   run      do the stage: read the prompt, work in the run directory,
 *            write the transcript records (engine/agents/record.h)
 * A chain "D1, D2" runs D2 in the same attempt when D1's final message has
 * a VERDICT starting with FAIL and a line beginning "unsupported:"; the
 * transcript records the hand-over. docs/agents.md has the details. */
#ifndef TILEPORT_AGENTS_AGENT_H
#define TILEPORT_AGENTS_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/agents/meter.h"
#include "engine/agents/record.h"
#include "engine/base/config.h"
#include "engine/core/driver.h"
#include "engine/base/loop.h"
#include "engine/base/proc.h"

struct agent_ctx {
	char stage;
	const char *op, *run_dir, *workspace, *skill_dir;
	const char *attempt_dir;
	const char *prompt_path;  /* the spawn prompt (prompt.md) */
	const char *command_log;  /* the run's commands.log */
	const struct config *cfg; /* agent settings: the user's config */
	const struct prices *prices;
	struct recorder *rec;
	struct loop *loop;
	bool offline;             /* the run is offline (no toolchain) */
	bool stop;                /* told to stop (signal): processes are killed, drivers end */
	int64_t kill_grace_ms;
};

struct driver_status {
	bool available;
	char *path;    /* where it was found, or the endpoint it would use */
	char *version; /* when asked for */
	char *why;     /* why it is not usable; or a note when it is */
};

struct agent_probe {
	const struct config *cfg;
	bool version; /* also ask the program its version (slower) */
	bool offline; /* handles: for a run without the toolchain */
};

struct agent_driver {
	const char *name, *summary;
	/* It may end "unsupported:", so a default choice gives it a successor. */
	bool hands_over;
	/* No model: the same input gets the same reply, so what it refused is
	 * never run through it again. */
	bool deterministic;
	const char *settings; /* its NAME.KEY config keys, space-separated */
	void (*probe)(const struct agent_probe *q, struct driver_status *st);
	/* false with why (caller frees; may be NULL) when it does not take the
	 * stage: "FILE:LINE:COL: unsupported: construct" for mech */
	bool (*handles)(const struct agent_probe *q, char stage, const char *op, const char *workspace,
			char **why);
	int (*run)(struct agent_ctx *ctx); /* a TP_EXIT_* code */
};

const struct agent_driver *agent_drivers(size_t *n);
const struct agent_driver *agent_driver_find(const char *name);
void driver_status_free(struct driver_status *st);
/* For drivers that take any stage. */
bool agent_handles_any(const struct agent_probe *q, char stage, const char *op, const char *workspace,
		       char **why);

/* A config entry of the agents' (a session_setting_check): 1 a known
 * driver setting or a good price line, 0 not the agents', -1 with err an
 * unknown key of a driver, a bad price, or either in the workspace's
 * .tileport.conf (agents can write it; these settings steer them). */
int agent_setting_check(const struct config_entry *e, struct tp_err *err);
extern const char agent_settings_hint[];

/* The catalog the orchestrator uses (engine/core/driver.h): built-in names
 * and the default driver for a stage, from the user config. */
extern const struct driver_catalog agent_catalog;

/* Run a chain of driver names on one attempt. Returns a TP_EXIT_* code. */
int agent_run_chain(struct agent_ctx *ctx, char *const *names);

/* A setting for a driver: environment variable env (may be NULL), else
 * config key, else NULL. */
const char *agent_setting(const struct agent_ctx *ctx, const char *env, const char *key);
long agent_setting_long(const struct agent_ctx *ctx, const char *key, long def);
/* A size setting ("4M", "512k", "100000": bytes), else def. The config
 * check refuses a malformed one (agent_size_keys). */
size_t agent_setting_size(const struct agent_ctx *ctx, const char *key, size_t def);
/* Wait ms on the agent's loop; false when told to stop meanwhile. */
bool agent_wait(struct agent_ctx *ctx, int64_t ms);

#endif
