/* The source view (views/source.c) opened on a run: the op's reference
 * source in the run's workspace beside the run's kernel.rs (translated in
 * memory while stage B has not written one). */
#ifndef TILEPORT_VIEWS_SOURCE_H
#define TILEPORT_VIEWS_SOURCE_H

#include "views/view.h"

void source_open_run(struct view *from, const char *workspace, const char *op,
		     const char *run_dir);

#endif
