/* When and how long to wait before asking an LLM API again, after the
 * official SDKs: retry connection errors, broken streams, 408, 409, 429 and
 * every 5xx (Anthropic's 529 "overloaded" included) unless the server says
 * x-should-retry: false, and always when it says true; never a 429 that
 * means money (insufficient_quota, spend limits) nor 400/401/403/404/413.
 * The delay is the server's retry-after(-ms) when it is between 0 and the
 * cap (a longer one is not waited for), else 0.5 s * 2^n up to 8 s, less up
 * to a quarter at random. */
#ifndef TILEPORT_AGENTS_RETRY_H
#define TILEPORT_AGENTS_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#define RETRY_CAP_MS 120000

/* status 0: no response (connection refused, reset, stream cut). body: an
 * error body or in-stream error text, may be NULL. */
bool retry_wanted(long status, int should_retry, const char *body);
/* Delay before retry number `attempt` (0 for the first); -1 when the
 * server asks for longer than the cap. `rnd` is a uniform number in [0,1). */
int64_t retry_delay_ms(int attempt, int64_t retry_after_ms, double rnd);

#endif
