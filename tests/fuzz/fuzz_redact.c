/* libFuzzer target: the spellings of a secret (engine/base/redact.h). The
 * text is redacted whole and as a stream cut at a point the first byte
 * chooses; the two must agree (the stream holds back only what could
 * still begin a secret), and neither may keep the secret as it is, in
 * its JSON escapes or in base64. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/redact.h"

static char *secrets[] = {"FUZZ_API_KEY=sk-fuzz/0123456789", "FUZZ_TOKEN=tok%41\\\\BC~~xyz", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || memchr(data + 1, '\0', size - 1))
		return 0;
	size_t n = size - 1, cut = data[0] % (n + 1);
	char *text = malloc(n + 1);
	memcpy(text, data + 1, n);
	text[n] = '\0';
	char *whole = redact_secrets(text, secrets);
	struct redact_stream rs = {.secrets = secrets};
	struct sbuf out = SBUF_INIT;
	redact_stream_feed(&rs, text, cut, &out);
	redact_stream_feed(&rs, text + cut, n - cut, &out);
	redact_stream_flush(&rs, &out);
	if (strcmp(whole, sb_str(&out)) != 0)
		__builtin_trap();
	const char *kept[] = {"sk-fuzz/0123456789", "sk-fuzz\\/0123456789", "c2stZnV6ei8wMTIzNDU2Nzg5"};
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (strstr(whole, kept[i]))
			__builtin_trap();
	redact_stream_free(&rs);
	sb_free(&out);
	free(whole);
	free(text);
	return 0;
}
