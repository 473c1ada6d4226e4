/* cmd_log: `simctl export LOG --csv DIR` and `simctl replay LOG` (see cmd_log.h). The
 * work is in libsim (sim_drivelog); this file is argument handling and messages. */
#include "cmd_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_cli.h"
#include "sim_drivelog.h"

/* mkdir -p: every missing directory of path, then path itself. */
static int make_dirs(const char *path, sim_error *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return sim_error_set(err, SIM_ETOOBIG, "%s: path too long", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return sim_error_set(err, SIM_EIO, "cannot create directory %s: %s", buf, strerror(errno));
            *p = c;
            if (c == '\0') break;
        }
    }
    return 0;
}

int simctl_cmd_export(int argc, char **argv)
{
    const char *csv = NULL, *from = NULL, *to = NULL;
    int run = -1;
    sim_opt opts[] = {
        {"csv", SIM_OPT_STRING, &csv, "DIR", "write DIR/samples.csv and DIR/events.csv (required)"},
        {"from", SIM_OPT_STRING, &from, "T|sector:ID|task:ID", "start at time T (s) or where the sector/task begins"},
        {"to", SIM_OPT_STRING, &to, "T|sector:ID|task:ID", "end at time T (s) or where the sector/task ends"},
        {"run", SIM_OPT_INT, &run, "N", "only run N (a restart starts a new run); default all"},
    };
    const char *usage = "simctl export LOG --csv DIR [--from ...] [--to ...] [--run N]";
    const char *desc = "Writes a drive log's samples and events as CSV files with a header row.";
    size_t n_opts = sizeof opts / sizeof opts[0];
    int npos = 0;
    int rc = sim_cli_parse(usage, desc, opts, n_opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1 || !csv) {
        fprintf(stderr, "simctl export: %s\n", npos != 1 ? "expected one LOG file" : "--csv DIR is required");
        sim_cli_print_usage(usage, desc, opts, n_opts, stderr);
        return 2;
    }
    sim_error err = {0};
    sim_drivelog_reader *r = NULL;
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = run;
    int ret = sim_drivelog_reader_open(argv[1], &r, &err);
    bool usage_error = false;
    if (!ret && from) ret = sim_drivelog_parse_bound(r, from, false, run, &range.t_from, &err);
    if (!ret && to) ret = sim_drivelog_parse_bound(r, to, true, run, &range.t_to, &err);
    usage_error = ret != 0 && r != NULL;
    if (!ret) ret = make_dirs(csv, &err);
    if (!ret) ret = sim_drivelog_export_csv(r, range, csv, &err);
    sim_drivelog_reader_close(r);
    if (ret) {
        fprintf(stderr, "simctl export: %s\n", err.msg);
        return usage_error && ret == SIM_EINVAL ? 2 : 1;
    }
    printf("%s/samples.csv\n%s/events.csv\n", csv, csv);
    return 0;
}
