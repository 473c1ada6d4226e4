/* simctl: the operator's and experimenter's command line: run a session, watch and
 * talk to the bus, send operator commands, and work with scenarios and drive logs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_codes.h"
#include "cmd_log.h"
#include "cmd_world.h"
#include "cmd_xodr.h"
#include "simctl.h"

/* `simctl video` is bin/simctl-video (simctl-video/): FFmpeg's libraries, about 120
 * shared objects, cost about 150 ms of CPU to load, for every simctl command. */
static int simctl_cmd_video(int argc, char **argv)
{
    char exe[PATH_MAX + 16];
    snprintf(exe, sizeof exe, "%s/simctl-video", simctl_bin_dir());
    argv[0] = "simctl-video";
    execv(exe, argv);
    fprintf(stderr, "simctl video: cannot start %s: %s (make builds it)\n", exe, strerror(errno));
    return 1;
}

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *args;
    const char *summary;
} command;

static const command commands[] = {
    {"run", simctl_cmd_run, "[SCENARIO] [--headless] [--lockstep] [--driver D] [--until end|S] [--out DIR]",
     "start a session: dispatcher and modules, supervised"},
    {"latency", simctl_cmd_latency, "[SCENARIO] [--steps N] [--json] [--motion predict|interpolate]",
     "measure the wheel-to-picture delay headless (a virtual wheel, the photodiode patch read back)"},
    {"tap", simctl_cmd_tap, "[PREFIX...]", "print bus messages live"},
    {"send", simctl_cmd_send, "TOPIC [JSON]", "publish one message"},
    {"status", simctl_cmd_status, "[--json]", "modules joined, message rates, drops, errors"},
    {"pause", simctl_cmd_control, "", "freeze simulation time"},
    {"resume", simctl_cmd_control, "", "continue"},
    {"restart", simctl_cmd_control, "AT", "restart at the named start point"},
    {"speed-limit", simctl_cmd_control, "KMH", "set the speed limit shown (0 clears)"},
    {"hud", simctl_cmd_control, "TEXT", "show TEXT on the head-up display"},
    {"automation", simctl_cmd_control, "MODE|tor [REASON]|set KMH [GAP_S]", "the ego car's automation: manual, acc, lc, l2, l3; a take-over request; ACC set speed and gap"},
    {"traffic", simctl_cmd_control, "density X | freeze | unfreeze", "traffic density and freezing"},
    {"light", simctl_cmd_control, "day|dusk|night", "light mode"},
    {"signal", simctl_cmd_control, "HEAD STATE|auto | controller ID PHASE", "a traffic light: hold a head in a state (red, green, ...) or back to auto; a controller to a phase"},
    {"sound", simctl_cmd_control, "on|off", "sound on or off"},
    {"stop", simctl_cmd_control, "", "end the session"},
    {"export", simctl_cmd_export, "LOG --csv DIR|--mcap FILE|--osi FILE|--xosc-csv FILE [--from X] [--to X]", "write a drive log as CSV files, one MCAP file, an ASAM OSI trace, or its trajectories as an OpenSCENARIO player does"},
    {"replay", simctl_cmd_replay, "LOG [--speed X]", "publish a logged drive on the bus at its logged times"},
    {"video", simctl_cmd_video, "LOG -o OUT.mp4 [--size WxH] [--fps N] [--from X] [--to X]", "render a drive log's driver view to a video on the log's time base"},
    {"codes", simctl_cmd_codes, "export LOG -o OUT.eaf [--video V] [--boris CSV] | import LOG FILE.eaf|CSV | list LOG",
     "a drive's events as ELAN tiers (and BORIS CSV); coded tiers from an .eaf or CSV back into the log"},
    {"seek", simctl_cmd_control, "T", "replay: jump to simulation time T (s)"},
    {"validate", simctl_cmd_validate, "FILE...", "check scenario files; exit 0 only when all are valid"},
    {"where", simctl_cmd_where, "FILE X Y", "road, s, d, lane and terrain height at a point, as JSON"},
    {"study", simctl_cmd_study, "plan|check|status|run|answer|flag|note|rebuild FILE ...",
     "a study: plan, check, run a participant's drives, questionnaires, status"},
    {"import-xodr", simctl_cmd_import_xodr, "FILE.xodr [--out SCENARIO]", "report an OpenDRIVE file; write a starter scenario"},
    {"lct-track", simctl_cmd_lct_track, "[--track N] [--out SCENARIO]", "write an ISO 26022 Lane Change Test track"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: simctl COMMAND [ARGS] [--help]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char left[96];
        snprintf(left, sizeof left, "%s %s", commands[i].name, commands[i].args);
        fprintf(f, "  %-44s %s\n", left, commands[i].summary);
    }
    fprintf(f, "\nOperator commands take --control URL (default %s) and --token T;\n"
               "bus commands take --bus HOST:PORT (default %s) and --token T.\n",
            SIMCTL_DEFAULT_CONTROL, SIMCTL_DEFAULT_BUS);
}

const char *simctl_bin_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            snprintf(dir, sizeof dir, "bin");
        } else {
            dir[n] = '\0';
            char *slash = strrchr(dir, '/');
            if (slash) *slash = '\0';
        }
    }
    return dir;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "__remote") == 0) return simctl_exec_remote(argc, argv); /* a lab's remote module: remote.c */
    if (strcmp(argv[1], "__clock") == 0) return simctl_exec_clock(argc, argv); /* a lab host's clock agent */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "simctl: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
