/* tileport ir SUBCOMMAND: Tile IR tools.
 *   ir fmt FILE [--debuginfo]   print the canonical text of FILE (text or bytecode) */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ir/ir.h"

static const char usage_ir[] =
	"usage: tileport ir fmt FILE [--debuginfo]\n"
	"\n"
	"Tile IR tools.\n"
	"\n"
	"  fmt FILE       print FILE (cuda_tile text or .tileirbc bytecode) as canonical text,\n"
	"                 the way cuda-tile-translate --cudatilebc-to-mlir prints it\n"
	"  --debuginfo    keep loc(...) suffixes and trailing #loc aliases\n"
	"\n"
	"exit: 0 ok, 2 bad usage or unreadable/invalid input\n";

static int ir_fmt(int argc, char **argv)
{
	static const struct option opts[] = {
		{"debuginfo", no_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned flags = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			flags |= IR_PRINT_DEBUGINFO;
			break;
		case 'h':
			fputs(usage_ir, stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option("ir fmt", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("ir fmt", "expected one FILE");
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *m = ir_module_load(argv[optind], &err);
	if (!m)
		return cli_report(&err);
	char *text = ir_module_to_string(m, flags);
	fputs(text, stdout);
	free(text);
	ir_module_free(m);
	return TP_EXIT_OK;
}

int cmd_ir(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage_ir, argc < 2 ? stderr : stdout);
		return argc < 2 ? TP_EXIT_USAGE : TP_EXIT_OK;
	}
	if (strcmp(argv[1], "fmt") == 0)
		return ir_fmt(argc - 1, argv + 1);
	return cli_usage_error("ir", "unknown subcommand '%s'", argv[1]);
}
