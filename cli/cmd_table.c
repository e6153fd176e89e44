/* tileport table [--json] [FILE]: print the pipeline table as loaded. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>

#include "engine/core/table.h"

static const char usage[] =
	"usage: tileport table [--json] [FILE]\n"
	"\n"
	"Load and check the pipeline table (default: $TILEPORT_TABLE, else the\n"
	"installed skill/pipeline.json) and print its stages and routing rows.\n"
	"\n"
	"  --json   print the table as JSON (with the line of every row)\n"
	"\n"
	"exit: 0 ok, 2 the table is malformed (the message names file and line)\n";

int cmd_table(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(usage, stdout), 0;
		else
			return cli_bad_option("table", argv, c);
	}
	if (argc - optind > 1)
		return cli_usage_error("table", "too many arguments");
	char *path = optind < argc ? xstrdup(argv[optind]) : table_default_path();
	struct tp_err err;
	struct table *t = table_load(path, &err);
	free(path);
	if (!t)
		return cli_report(&err);
	if (json) {
		char *s = table_to_json(t);
		puts(s);
		free(s);
	} else {
		table_print_text(t, stdout);
	}
	table_free(t);
	return 0;
}
