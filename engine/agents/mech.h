/* The mech driver's stage work: stages A, B and D of a conversion done
 * mechanically by engine/port, with no model and no tokens.
 *
 *   A  reference/analysis.json from the op and its tests, reports
 *   B  kernel.rs (an entry per kernel and structural variant), the
 *      throwaway crate, the build log, reports with the host launch
 *      contract, and the offline structural self-check (the op inventory)
 *   D  ffi.rs (in-tree and OUT), the in-tree kernel.rs copy, the lib.rs
 *      registration, the Python wrapper, the __init__.py import, the test
 *      file's cutile-rs parametrisation, correctness.md, reports
 *
 * Offline (no toolchain, no GPU) every toolchain step is deferred and
 * listed in `deferred:`, and the stage answers VERDICT: DEFERRED. What mech
 * cannot do — an unsupported construct, or a run with the toolchain, whose
 * IR dumps, builds and tests need an agent — ends with a line beginning
 * `unsupported:` and a VERDICT: FAIL..., so that the next driver of the
 * stage's chain takes over. The stage's message and artifacts are written
 * the way skill/SKILL.md asks of every stage; its transcript is the stream
 * of engine/core/transcript.h, written through engine/agents/record.h. As
 * a built-in driver (engine/agents/drivers.def) it comes first in the
 * defaults of A, B and D for the operators it handles, and hands over to
 * the next usable driver. */
#ifndef TILEPORT_AGENTS_MECH_H
#define TILEPORT_AGENTS_MECH_H

#include <stdbool.h>

#include "engine/agents/record.h"
#include "engine/base/util.h"

struct mech_ctx {
	char stage;            /* 'A', 'B' or 'D' */
	const char *op;        /* TILEPORT_OP */
	const char *run_dir;   /* TILEPORT_RUN_DIR: OUT */
	const char *workspace; /* TILEGYM_PATH */
	bool offline;          /* TILEPORT_OFFLINE */
	const char *bin;       /* the tileport binary the validators run as */
};

/* Does mech take stage `stage` of `op`: a stage it knows, and an op whose
 * kernels it translates (for D, whose host code it writes too)? false with
 * the reason in *why (caller frees; may be NULL). Offline or not is the
 * run's: with the toolchain, mech_run hands the stage over. */
bool mech_handles(char stage, const char *op, const char *workspace, char **why);

/* Do the stage and write its transcript through rec. Returns 0 when a
 * verdict was given, whatever it is; -1 (err set) when not even that was
 * possible. */
int mech_run(const struct mech_ctx *c, struct recorder *rec, struct tp_err *err);

#endif
