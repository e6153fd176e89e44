#include "engine/agents/retry.h"

#include <string.h>

static bool money(const char *body)
{
	static const char *const codes[] = {"insufficient_quota", "enforced_spend_limit_reached",
					    "billing_hard_limit_reached", "spend_limit", "credit balance"};
	for (size_t i = 0; body && i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strstr(body, codes[i]))
			return true;
	return false;
}

bool retry_wanted(long status, int should_retry, const char *body)
{
	if (money(body))
		return false;
	if (should_retry == 1)
		return true;
	if (should_retry == 0)
		return false;
	return status == 0 || status == 408 || status == 409 || status == 429 || status >= 500;
}

int64_t retry_delay_ms(int attempt, int64_t retry_after_ms, double rnd)
{
	if (retry_after_ms > RETRY_CAP_MS)
		return -1;
	if (retry_after_ms >= 0)
		return retry_after_ms;
	int64_t d = 500;
	for (int i = 0; i < attempt && d < 8000; i++)
		d *= 2;
	if (d > 8000)
		d = 8000;
	return (int64_t)((double)d * (1.0 - 0.25 * rnd));
}
