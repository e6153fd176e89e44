/* nvidia-smi's CSV query rather than NVML: the same program preflight
 * probes, no library to load, and a stand-in is a script on PATH. */
#include "engine/perf/gpu.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/proc.h"
#include "engine/base/util.h"

int gpu_default_index(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (v && isdigit((unsigned char)*v))
		return atoi(v);
	return 0;
}

static int int_field(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return end == s ? -1 : (int)v;
}

/* One line of nvidia-smi's CSV answer (index, name, driver_version,
 * clocks.sm, clocks.max.sm, temperature.gpu, power.draw,
 * clocks_event_reasons.active; noheader, nounits). */
static bool parse_line(const char *line, struct gpu_snapshot *s)
{
	size_t n;
	char **f = str_split(line, ',', true, &n);
	bool ok = n >= 8;
	if (ok) {
		for (size_t i = 0; i < n; i++)
			str_trim(f[i]);
		s->index = int_field(f[0]);
		snprintf(s->name, sizeof(s->name), "%s", f[1]);
		snprintf(s->driver, sizeof(s->driver), "%s", f[2]);
		s->sm_mhz = int_field(f[3]);
		s->max_sm_mhz = int_field(f[4]);
		s->temp_c = int_field(f[5]);
		char *end;
		s->power_w = strtod(f[6], &end);
		if (end == f[6])
			s->power_w = NAN;
		snprintf(s->reasons, sizeof(s->reasons), "%s", f[7]);
		ok = s->index >= 0 && *s->name;
	}
	s->ok = ok;
	if (!ok)
		snprintf(s->problem, sizeof(s->problem), "nvidia-smi answered '%.80s'", line);
	strv_free(f);
	return ok;
}

void gpu_snapshot(int index, struct gpu_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->index = index;
	s->sm_mhz = s->max_sm_mhz = s->temp_c = -1;
	s->power_w = NAN;
	char *smi = which("nvidia-smi");
	if (!smi) {
		snprintf(s->problem, sizeof(s->problem), "nvidia-smi not found");
		return;
	}
	char idx[16];
	snprintf(idx, sizeof(idx), "%d", index);
	/* clocks_event_reasons is the current name; drivers before 535 call it
	 * clocks_throttle_reasons */
	const char *fields[] = {
		"--query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,"
		"power.draw,clocks_event_reasons.active",
		"--query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,"
		"power.draw,clocks_throttle_reasons.active",
	};
	char *line = NULL;
	for (size_t i = 0; i < 2 && !line; i++) {
		char *argv[] = {smi, "-i", idx, (char *)fields[i], "--format=csv,noheader,nounits",
				NULL};
		line = proc_first_line(argv, 10000);
	}
	if (line)
		parse_line(line, s);
	else
		snprintf(s->problem, sizeof(s->problem), "nvidia-smi -i %d --query-gpu failed", index);
	free(line);
	free(smi);
}
