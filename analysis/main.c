/* analysis: offline lane-deviation metrics, plots and reports of logged drives.
 *
 *   analysis report LOG... [--out DIR] [--scenario FILE] [--no-plots]
 *   analysis batch DIR --out DIR [--scenario FILE] [--jobs N] [--no-plots]
 *   analysis synth --out DIR [--subjects N] [--minutes M] [--tasks N] [--seed S]
 *
 * A LOG is a drive log (SQLite, read through sim_drivelog) or its CSV export (a folder
 * with samples.csv and events.csv, as `simctl export LOG --csv DIR` writes it). The
 * scenario comes from the log's meta (scenario_file) unless --scenario names one; a CSV
 * export carries no meta, so it needs --scenario. */
#include "sim_file.h"
#include "analysis.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"

static const char *base_name(const char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') n--;
    const char *b = p + n;
    while (b > p && b[-1] != '/') b--;
    return b;
}

static int cmd_report(int argc, char **argv)
{
    const char *out = "analysis-out", *scenario = NULL;
    bool no_plots = false, timing = false;
    an_params params = an_params_default();
    double margin_kmh = params.speed_margin * 3.6;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "DIR", "where the report goes (default analysis-out); one "
                                             "sub-folder per log when given several"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario file (default: the log's meta)"},
        {"no-plots", SIM_OPT_FLAG, &no_plots, NULL, "tables and page only, no figures"},
        {"timing", SIM_OPT_FLAG, &timing, NULL, "print the seconds spent in each phase"},
        {"vehicle-width", SIM_OPT_DOUBLE, &params.vehicle_width, "M", "car width for lane-mark events (default 1.8)"},
        {"speed-margin-kmh", SIM_OPT_DOUBLE, &margin_kmh, "KMH",
         "tolerance of time_over_limit_margin_s over the speed limit (default 3)"},
        {"lct-baseline", SIM_OPT_STRING, &params.lct_baseline, "LOG",
         "the participant's baseline Lane Change Test drive: MDEV against the adaptive model too"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis report LOG... [options]",
                           "Metrics, plots and report.html of each drive log (.sqlite or CSV export folder).",
                           opts, 7, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    params.speed_margin = margin_kmh / 3.6;
    if (npos < 1) {
        fprintf(stderr, "analysis report: expected at least one LOG\n");
        sim_cli_print_usage("analysis report LOG... [options]", NULL, opts, 7, stderr);
        return 2;
    }
    int failed = 0;
    for (int k = 0; k < npos; k++) {
        const char *log = argv[2 + k];
        char dir[4200];
        if (npos == 1) snprintf(dir, sizeof dir, "%s", out);
        else snprintf(dir, sizeof dir, "%s/%s", out, base_name(log));
        sim_error err = {0};
        an_result res;
        an_drive dr;
        an_scenario sc;
        an_timing tm = {0};
        if (an_report_one(log, scenario, &params, dir, !no_plots, &res, &dr, &sc, &tm, &err)) {
            /* Most messages name the drive already; say it once. */
            if (strstr(err.msg, log)) fprintf(stderr, "analysis: %s\n", err.msg);
            else fprintf(stderr, "analysis: %s: %s\n", log, err.msg);
            failed++;
            continue;
        }
        for (size_t w = 0; w < res.n_warnings; w++)
            fprintf(stderr, "analysis: %s: %s\n", log, res.warnings[w]);
        printf("%s: %zu task result%s -> %s/report.html (open it in a browser, e.g. "
               "xdg-open %s/report.html)\n",
               log, res.n_tasks, res.n_tasks == 1 ? "" : "s", dir, dir);
        if (dr.n_latency) {
            an_latency_summary ls;
            char line[160];
            an_latency_summarise(dr.latency, dr.n_latency, &ls);
            an_latency_line(&ls, line, sizeof line);
            printf("%s\n", line);
        }
        if (timing)
            printf("timing: samples %zu load %.4f compute %.4f tables %.4f figures %.4f html %.4f s\n",
                   dr.n, tm.load, tm.compute, tm.tables, tm.figures, tm.html);
        an_result_free(&res);
        an_scenario_free(&sc);
        an_drive_free(&dr);
    }
    return failed ? 1 : 0;
}

static int cmd_batch(int argc, char **argv)
{
    an_batch_opts o = {.params = an_params_default()};
    double margin_kmh = o.params.speed_margin * 3.6;
    const char *out = NULL;
    int jobs = 0;
    bool no_plots = false;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "DIR", "where study.csv, study.html and the drives' reports go"},
        {"scenario", SIM_OPT_STRING, &o.scenario, "FILE", "scenario for every drive (default: each log's meta)"},
        {"jobs", SIM_OPT_INT, &jobs, "N", "worker processes (default: number of cores)"},
        {"no-plots", SIM_OPT_FLAG, &no_plots, NULL, "per-drive tables only, no figures"},
        {"vehicle-width", SIM_OPT_DOUBLE, &o.params.vehicle_width, "M", "car width for lane-mark events (default 1.8)"},
        {"speed-margin-kmh", SIM_OPT_DOUBLE, &margin_kmh, "KMH",
         "tolerance of time_over_limit_margin_s over the speed limit (default 3)"},
        {"lct-baseline-match", SIM_OPT_STRING, &o.lct_baseline_match, "TEXT",
         "a drive whose name holds TEXT is its subject's Lane Change Test baseline: MDEV against the adaptive "
         "model for every drive of that subject"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis batch DIR --out DIR [options]",
                           "Every drive log under DIR, in parallel: study.csv and a study page.",
                           opts, 7, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 1 || !out) {
        fprintf(stderr, "analysis batch: expected one DIR and --out DIR\n");
        sim_cli_print_usage("analysis batch DIR --out DIR [options]", NULL, opts, 7, stderr);
        return 2;
    }
    if (jobs < 0) {
        fprintf(stderr, "analysis batch: --jobs %d: expected >= 0\n", jobs);
        return 2;
    }
    o.params.speed_margin = margin_kmh / 3.6;
    o.dir = argv[2];
    o.out = out;
    o.jobs = jobs;
    o.plots = !no_plots;
    sim_error err = {0};
    rc = an_batch(&o, &err);
    if (rc < 0) {
        fprintf(stderr, "analysis batch: %s\n", err.msg);
        return 1;
    }
    return rc; /* 1 when some drive failed */
}

static int cmd_synth(int argc, char **argv)
{
    const char *out = NULL, *scenario = NULL;
    int subjects = 3, tasks = 6, seed = 1;
    double minutes = 0;
    bool sqlite = false, secondary = false;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "DIR", "folder for scenario.json and one drive per subject"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "drive this scenario's tasks instead of writing one"},
        {"subjects", SIM_OPT_INT, &subjects, "N", "number of drives (default 3)"},
        {"minutes", SIM_OPT_DOUBLE, &minutes, "M", "length of each drive at 100 Hz (default 3, or "
                                                   "through the scenario's last task)"},
        {"tasks", SIM_OPT_INT, &tasks, "N", "tasks in a written scenario (default 6)"},
        {"seed", SIM_OPT_INT, &seed, "S", "random seed (default 1)"},
        {"sqlite", SIM_OPT_FLAG, &sqlite, NULL, "write drive logs (SQLite) instead of CSV exports"},
        {"secondary", SIM_OPT_FLAG, &secondary, NULL, "add DRT, gaze and SuRT events (docs/metrics.md)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis synth --out DIR [options]",
                           "Writes a synthetic lane-change study to try the analysis on.", opts,
                           8, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (!out || npos || subjects < 1 || subjects > 10000 || tasks < 1 || tasks > 1000 ||
        !(minutes >= 0) || minutes > 600) {
        fprintf(stderr, "analysis synth: expected --out DIR, 1..10000 subjects, 1..1000 tasks, "
                        "0 < minutes <= 600\n");
        return 2;
    }
    sim_error err = {0};
    char path[4200];
    if (sim_file_mkdirs(out, &err)) {
        fprintf(stderr, "analysis synth: %s\n", err.msg);
        return 1;
    }
    an_scenario sc;
    const an_params defaults = an_params_default();
    const char *scfile = scenario;
    if (scenario) {
        if (an_scenario_load(scenario, &defaults, &sc, &err)) {
            fprintf(stderr, "analysis synth: %s\n", err.msg);
            return 1;
        }
        if (minutes == 0) {
            /* Through the last task's end at about 60 km/h, and a little further. */
            double end = 0;
            for (size_t k = 0; k < sc.n_tasks; k++) end = fmax(end, sc.tasks[k].s_end);
            minutes = (end + 150) / (60 / 3.6) / 60;
        }
    } else {
        if (minutes == 0) minutes = 3;
        /* Tasks spread over the distance driven at 60 km/h. */
        double length = minutes * 60 * 60 / 3.6 - 200, period = length / tasks;
        snprintf(path, sizeof path, "%s/scenario.json", out);
        scfile = "scenario.json";
        if (an_synth_scenario(path, tasks, period * 0.8, period, length * 1.2 + 600, (uint64_t)seed, &err) ||
            an_scenario_load(path, &defaults, &sc, &err)) {
            fprintf(stderr, "analysis synth: %s\n", err.msg);
            return 1;
        }
    }
    for (int k = 0; k < subjects; k++) {
        char subj[32];
        snprintf(subj, sizeof subj, "S%02d", k + 1);
        an_drive dr;
        snprintf(path, sizeof path, "%s/%s%s", out, subj, sqlite ? ".sqlite" : "");
        if (an_synth_drive(&sc, minutes * 60, 100, (uint64_t)(seed * 1000 + k), subj, scfile,
                           &dr, &err) ||
            (secondary && an_synth_secondary(&dr, (uint64_t)(seed * 1000 + k), &err)) ||
            (sqlite ? an_drive_write_log(&dr, path, &err) : an_drive_write_csv(&dr, path, &err))) {
            fprintf(stderr, "analysis synth: %s\n", err.msg);
            an_drive_free(&dr);
            an_scenario_free(&sc);
            return 1;
        }
        an_drive_free(&dr);
    }
    an_scenario_free(&sc);
    printf("%d synthetic drive%s in %s (scenario %s%s%s)\n", subjects, subjects == 1 ? "" : "s",
           out, scenario ? "" : out, scenario ? "" : "/", scfile);
    return 0;
}

static int cmd_figure(int argc, char **argv)
{
    const char *out = "docs/img/metrics-definitions";
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "BASE", "path without extension (default docs/img/metrics-definitions)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis figure [--out BASE]",
                           "Draws the definitions figure of docs/metrics.md as BASE.png and BASE.svg.",
                           opts, 1, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos) {
        fprintf(stderr, "analysis figure: unexpected argument '%s'\n", argv[2]);
        return 2;
    }
    char path[4200];
    sim_error err = {0};
    for (int x = 0; x < 2; x++) {
        snprintf(path, sizeof path, "%s.%s", out, x ? "svg" : "png");
        if (an_plot_definitions(path, x ? AN_SVG : AN_PNG, &err)) {
            fprintf(stderr, "analysis figure: %s\n", err.msg);
            return 1;
        }
    }
    printf("%s.png, %s.svg\n", out, out);
    return 0;
}

static int cmd_study(int argc, char **argv)
{
    an_study_opts o = {.params = an_params_default(), .plots = true};
    bool no_plots = false;
    sim_opt opts[] = {
        {"study-dir", SIM_OPT_STRING, &o.study_dir, "DIR", "the study's folder (default out/studies/<study>)"},
        {"out", SIM_OPT_STRING, &o.out, "DIR", "where the tables and study.html go (default <study-dir>/analysis)"},
        {"no-plots", SIM_OPT_FLAG, &no_plots, NULL, "tables and page only, no figures"},
        {"complete", SIM_OPT_FLAG, &o.complete, NULL, "exit 1 while a planned drive is missing or flagged"},
        {"lct-baseline-condition", SIM_OPT_STRING, &o.lct_baseline_condition, "NAME",
         "each participant's drive of condition NAME is their Lane Change Test baseline: MDEV against the "
         "adaptive model for all their drives"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis study FILE [--study-dir DIR] [--out DIR] [--complete]",
                           "A study's drives and questionnaires: tidy.csv, questionnaires.csv, drives.csv, study.html.",
                           opts, 5, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 1) {
        fprintf(stderr, "analysis study: expected the study FILE\n");
        return 2;
    }
    o.file = argv[2];
    o.plots = !no_plots;
    sim_error err = {0};
    rc = an_study(&o, &err);
    if (rc < 0) {
        fprintf(stderr, "analysis study: %s\n", err.msg);
        return 1;
    }
    return rc;
}

static void usage(FILE *f)
{
    fputs("usage: analysis COMMAND [options]\n\n"
          "  report LOG... [--out DIR]     metrics, plots and report.html of drive logs\n"
          "  batch DIR --out DIR           every drive under DIR: study.csv and study.html\n"
          "  study FILE                    a study (simctl study): tidy.csv, questionnaires, study.html\n"
          "  synth --out DIR               a synthetic study to try it on\n"
          "  figure [--out BASE]           the definitions figure of docs/metrics.md\n"
          "  motion LOG [--json]           motion cueing fidelity of a drive with a motion base\n"
          "  codes LOG [--out FILE.csv]    measures per coded episode (simctl codes import)\n\n"
          "'analysis COMMAND --help' describes each command's options.\n",
          f);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "report")) return cmd_report(argc, argv);
    if (!strcmp(argv[1], "batch")) return cmd_batch(argc, argv);
    if (!strcmp(argv[1], "synth")) return cmd_synth(argc, argv);
    if (!strcmp(argv[1], "study")) return cmd_study(argc, argv);
    if (!strcmp(argv[1], "figure")) return cmd_figure(argc, argv);
    if (!strcmp(argv[1], "motion")) return an_cmd_motion(argc, argv);
    if (!strcmp(argv[1], "codes")) return an_cmd_codes(argc, argv);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "analysis: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    /* Drop cairo's and fontconfig's caches so that leak checkers see a clean exit. */
    cairo_debug_reset_static_data();
    FcFini();
    return rc;
}
