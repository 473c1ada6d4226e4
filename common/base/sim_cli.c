/* sim_cli: table-driven option parsing with --help and clear errors (see sim_cli.h). */
#include "sim_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_cli_print_usage(const char *usage_line, const char *description, const sim_opt *opts,
                         size_t n_opts, void *stream)
{
    FILE *f = stream;
    fprintf(f, "usage: %s\n", usage_line);
    if (description && *description) fprintf(f, "\n%s\n", description);
    if (n_opts) fprintf(f, "\noptions:\n");
    for (size_t i = 0; i < n_opts; i++) {
        char left[96];
        if (opts[i].kind == SIM_OPT_FLAG)
            snprintf(left, sizeof left, "--%s", opts[i].name);
        else
            snprintf(left, sizeof left, "--%s %s", opts[i].name,
                     opts[i].metavar ? opts[i].metavar : "VALUE");
        fprintf(f, "  %-28s %s\n", left, opts[i].help ? opts[i].help : "");
    }
    fprintf(f, "  %-28s %s\n", "--help", "show this help and exit");
}

bool sim_cli_number(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

static int set_value(const sim_opt *o, const char *value, char *why, size_t why_size)
{
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case SIM_OPT_STRING:
        *(const char **)o->target = value;
        return 0;
    case SIM_OPT_INT: {
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < -2147483647L || v > 2147483647L) {
            snprintf(why, why_size, "--%s expects an integer, got '%s'", o->name, value);
            return -1;
        }
        *(int *)o->target = (int)v;
        return 0;
    }
    case SIM_OPT_DOUBLE:
        if (!sim_cli_number(value, (double *)o->target)) {
            snprintf(why, why_size, "--%s expects a number, got '%s'", o->name, value);
            return -1;
        }
        return 0;
    case SIM_OPT_FLAG:
        break;
    }
    return -1;
}

int sim_cli_parse(const char *usage_line, const char *description, const sim_opt *opts,
                  size_t n_opts, int argc, char **argv, int first, int *npos)
{
    int out = first;
    char why[256] = "";
    bool options_done = false;
    for (int i = first; i < argc; i++) {
        char *arg = argv[i];
        if (options_done || strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (!options_done && strcmp(arg, "--") == 0) {
                options_done = true;
                continue;
            }
            argv[out++] = arg;
            continue;
        }
        const char *name = arg + 2;
        if (strcmp(name, "help") == 0) {
            sim_cli_print_usage(usage_line, description, opts, n_opts, stdout);
            return SIM_CLI_HELP;
        }
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const sim_opt *o = NULL;
        for (size_t k = 0; k < n_opts; k++)
            if (strlen(opts[k].name) == name_len && strncmp(opts[k].name, name, name_len) == 0)
                o = &opts[k];
        if (!o) {
            snprintf(why, sizeof why, "unknown option '--%.*s'", (int)name_len, name);
            goto fail;
        }
        if (o->kind == SIM_OPT_FLAG) {
            if (eq) {
                snprintf(why, sizeof why, "--%s takes no value", o->name);
                goto fail;
            }
            *(bool *)o->target = true;
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc) {
                snprintf(why, sizeof why, "--%s needs a value (%s)", o->name,
                         o->metavar ? o->metavar : "VALUE");
                goto fail;
            }
            value = argv[++i];
        }
        if (set_value(o, value, why, sizeof why) != 0) goto fail;
    }
    if (npos) *npos = out - first;
    return SIM_CLI_OK;
fail:
    fprintf(stderr, "error: %s\n", why);
    sim_cli_print_usage(usage_line, description, opts, n_opts, stderr);
    return SIM_CLI_ERROR;
}
