/* What the GPU was doing around a measurement: name, driver, SM clock
 * (and its maximum), temperature, power and the clock event reasons, read
 * with nvidia-smi before and after every benchmark process. The clocks are
 * recorded, never set: on a shared machine locking them is not ours to
 * do (docs/perf.md). */
#ifndef TILEPORT_PERF_GPU_H
#define TILEPORT_PERF_GPU_H

#include <stdbool.h>

struct gpu_snapshot {
	bool ok;
	int index;
	char name[96];
	char driver[32];
	int sm_mhz, max_sm_mhz; /* -1 when unknown */
	int temp_c;
	double power_w;         /* NAN when unknown */
	char reasons[32];       /* clocks_event_reasons.active, "0x0000000000000000" */
	char problem[128];      /* why !ok */
};

/* The GPU a process would use: the first CUDA_VISIBLE_DEVICES entry when
 * it is a number, else 0. */
int gpu_default_index(void);
/* Read one GPU; s->ok false with s->problem when nvidia-smi is missing or
 * says nothing usable. */
void gpu_snapshot(int index, struct gpu_snapshot *s);

#endif
