/* tileport: git-style subcommands over the engine. */
#include "cli/cli.h"

#include "engine/base/files.h"

#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_globals cli_globals;

struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

static const struct command commands[] = {
#define CMD(name, fn, summary) {#name, fn, summary},
#include "cli/commands.def"
#undef CMD
};

static void print_main_help(FILE *out)
{
	fprintf(out,
		"usage: tileport [--workspace DIR] COMMAND [ARGS...]\n"
		"       tileport --version | --help\n"
		"\n"
		"Run, supervise and review conversions of GPU tile kernels to cuTile Rust.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < TP_ARRAY_LEN(commands); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'tileport COMMAND --help' shows a command's options.\n");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tileport %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'tileport %s --help')\n", cmd);
	return TP_EXIT_USAGE;
}

int cli_bad_option(const char *cmd, char *const *argv, int c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	if (optopt && !str_starts(arg, "--"))
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

bool cli_want_screen(bool no_screen)
{
	if (no_screen)
		return false;
	const char *nd = getenv("TILEPORT_NO_DISPLAY");
	return (nd && *nd && strcmp(nd, "0") != 0) || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
}

int cli_report(const struct tp_err *err)
{
	fprintf(stderr, "tileport: %s\n", err->msg[0] ? err->msg : "error");
	return err->code ? err->code : TP_EXIT_FAILED;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int cmd_help(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
		puts("usage: tileport help [COMMAND]\n\nWithout COMMAND, list the commands; with one, show its options.");
		return 0;
	}
	if (argc < 2) {
		print_main_help(stdout);
		return 0;
	}
	const struct command *c = find_command(argv[1]);
	if (!c)
		return cli_usage_error("help", "unknown command '%s'", argv[1]);
	char *args[] = {(char *)c->name, "--help", NULL};
	return c->fn(2, args);
}

/* What a command printed must have arrived: `tileport ir fmt X > /dev/full`
 * is an environment failure, never a silent exit 0. */
static int finish_output(int rc)
{
	struct tp_err err;
	if (stdout_flush_check(&err) < 0) {
		fprintf(stderr, "tileport: %s\n", err.msg);
		return TP_EXIT_ENV;
	}
	return rc;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	/* '+' stops at the first non-option: the subcommand owns the rest. */
	while ((c = getopt_long(argc, argv, "+:w:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			cli_globals.workspace = optarg;
			break;
		case 'V':
			printf("tileport %s\n", TILEPORT_VERSION);
			return finish_output(0);
		case 'h':
			print_main_help(stdout);
			return finish_output(0);
		default: {
			const char *arg = optind > 0 ? argv[optind - 1] : "";
			if (c == ':')
				fprintf(stderr, "tileport: option '%s' needs a value\n", arg);
			else if (optopt && !str_starts(arg, "--"))
				fprintf(stderr, "tileport: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "tileport: unknown option '%s'\n", arg);
			fprintf(stderr, "(see 'tileport --help')\n");
			return TP_EXIT_USAGE;
		}
		}
	}
	if (optind >= argc) {
		const struct command *def = find_command("browse");
		if (def) {
			char *args[] = {(char *)def->name, NULL};
			return def->fn(1, args);
		}
		print_main_help(stderr);
		return TP_EXIT_USAGE;
	}
	const struct command *cmd = find_command(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "tileport: '%s' is not a tileport command (see 'tileport --help')\n",
			argv[optind]);
		return TP_EXIT_USAGE;
	}
	int sub_argc = argc - optind;
	char **sub_argv = argv + optind;
	optind = 0; /* glibc: 0 re-initialises getopt for the subcommand */
	return finish_output(cmd->fn(sub_argc, sub_argv));
}
