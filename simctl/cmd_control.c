/* simctl pause|resume|restart|speed-limit|hud|traffic|light|sound|stop|status:
 * operator commands through the dispatcher's control endpoint (nanomsg REQ). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "sim_cli.h"
#include "sim_command.h"
#include "sim_control.h"
#include "simctl.h"

char *simctl_control_request(const char *url, const char *request, int timeout_ms, char *err, size_t err_size)
{
    return sim_control_request(url, request, timeout_ms, err, err_size);
}

/* Adds key: the number in text, if it is one and >= min; false otherwise. */
static bool add_number(cJSON *req, const char *key, const char *text, double min)
{
    double v;
    if (!sim_cli_number(text, &v) || v < min) return false;
    cJSON_AddNumberToObject(req, key, v);
    return true;
}

/* Turns "simctl speed-limit 80" etc. into the request object; NULL with why filled
 * when the arguments do not fit the command. The dispatcher validates the request
 * again (sim_command): this is only for messages in the command line's own terms. */
static cJSON *build_request(const char *sub, int npos, char **pos, char *why, size_t why_size)
{
    cJSON *req = cJSON_CreateObject();
    char cmd[32];
    snprintf(cmd, sizeof cmd, "%s", sub);
    for (char *p = cmd; *p; p++)
        if (*p == '-') *p = '_';
    cJSON_AddStringToObject(req, "cmd", cmd);
    int want = 0; /* positional arguments expected; -1: any number */
    const char *arg = npos >= 1 ? pos[0] : NULL;
    if (!strcmp(cmd, "restart")) {
        want = 1;
        if (arg) cJSON_AddStringToObject(req, "at", arg);
    } else if (!strcmp(cmd, "speed_limit")) {
        want = 1;
        if (arg && !add_number(req, "kmh", arg, -INFINITY)) {
            snprintf(why, why_size, "speed-limit: '%s' is not a number (km/h; 0 clears)", arg);
            goto bad;
        }
    } else if (!strcmp(cmd, "seek")) {
        want = 1;
        if (arg && !add_number(req, "to", arg, 0)) {
            snprintf(why, why_size, "seek: '%s' is not a time in seconds >= 0", arg);
            goto bad;
        }
    } else if (!strcmp(cmd, "hud")) {
        want = 1;
        if (arg) cJSON_AddStringToObject(req, "text", arg);
    } else if (!strcmp(cmd, "light")) {
        want = 1;
        if (arg) cJSON_AddStringToObject(req, "mode", arg);
    } else if (!strcmp(cmd, "sound")) {
        want = 1;
        if (arg && strcmp(arg, "on") && strcmp(arg, "off")) {
            snprintf(why, why_size, "sound: expected 'on' or 'off', got '%s'", arg);
            goto bad;
        }
        if (arg) cJSON_AddBoolToObject(req, "on", !strcmp(arg, "on"));
    } else if (!strcmp(cmd, "automation")) {
        /* simctl automation MODE | tor [REASON] | set KMH [GAP_S] */
        want = -1;
        if (npos >= 1 && !strcmp(pos[0], "tor") && npos <= 2) {
            cJSON_AddStringToObject(req, "tor", npos == 2 ? pos[1] : "operator");
        } else if (npos >= 2 && !strcmp(pos[0], "set") && npos <= 3) {
            if (!add_number(req, "set_kmh", pos[1], -INFINITY) || (npos == 3 && !add_number(req, "gap_s", pos[2], -INFINITY))) {
                snprintf(why, why_size, "automation set: expected KMH [GAP_S] as numbers");
                goto bad;
            }
        } else if (npos == 1) {
            cJSON_AddStringToObject(req, "mode", pos[0]);
        } else {
            snprintf(why, why_size, "automation: expected MODE (manual|acc|lc|l2|l3), 'tor [REASON]' or 'set KMH [GAP_S]'");
            goto bad;
        }
    } else if (!strcmp(cmd, "traffic")) {
        /* simctl traffic density 0.5 | freeze | unfreeze */
        want = -1;
        for (int i = 0; i < npos; i++) {
            if (!strcmp(pos[i], "freeze")) {
                cJSON_AddTrueToObject(req, "freeze");
            } else if (!strcmp(pos[i], "unfreeze")) {
                cJSON_AddFalseToObject(req, "freeze");
            } else if (!strcmp(pos[i], "density") && i + 1 < npos) {
                if (!add_number(req, "density", pos[++i], -INFINITY)) {
                    snprintf(why, why_size, "traffic: density '%s' is not a number (0..1)", pos[i]);
                    goto bad;
                }
            } else {
                snprintf(why, why_size, "traffic: expected 'density X', 'freeze' or 'unfreeze', got '%s'", pos[i]);
                goto bad;
            }
        }
    }
    if (want >= 0 && npos != want) {
        snprintf(why, why_size, "%s takes %d argument%s, got %d", sub, want, want == 1 ? "" : "s", npos);
        goto bad;
    }
    return req;
bad:
    cJSON_Delete(req);
    return NULL;
}

/* Fields of the status reply, read defensively: the reply comes over the network and a
 * missing or mistyped field prints as "?" or 0 instead of crashing simctl. */
static const char *field_str(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : "?";
}

static double field_num(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(j) ? j->valuedouble : 0;
}

static void print_status_table(const cJSON *r)
{
    printf("%-4s %-16s %10s %10s %10s %12s %s\n", "id", "module", "in/s", "out/s", "dropped", "queued(B)", "flags");
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "modules")) {
        printf("%-4.0f %-16s %10.1f %10.1f %10.0f %12.0f %s%s\n", field_num(m, "id"), field_str(m, "name"),
               field_num(m, "in_rate"), field_num(m, "out_rate"), field_num(m, "dropped"),
               field_num(m, "queued_bytes"), cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "lockstep")) ? "lockstep " : "",
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "durable")) ? "durable" : "");
    }
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(r, "backlogs")) {
        printf("AWAY %s: %.0f messages kept for it%s\n", field_str(b, "name"), field_num(b, "messages"),
               field_num(b, "dropped") > 0 ? " (some were dropped: its log will have a gap)" : "");
    }
    /* instrument bridges (docs/instruments.md): their newest bridge.status */
    const cJSON *br;
    cJSON_ArrayForEach(br, cJSON_GetObjectItemCaseSensitive(r, "bridges")) {
        const cJSON *cal = cJSON_GetObjectItemCaseSensitive(br, "calibration_age_s");
        char calib[64] = "calibration unknown";
        if (cJSON_IsNumber(cal)) snprintf(calib, sizeof calib, "calibrated %.0f s ago", cal->valuedouble);
        double age = field_num(br, "age_s");
        printf("BRIDGE %s (%s -> %s): %s, %.1f samples/s, %.0f dropped, %s%s\n", field_str(br, "name"),
               field_str(br, "kind"), field_str(br, "publishes"),
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(br, "connected")) ? "connected" : "NOT CONNECTED",
               field_num(br, "rate_hz"), field_num(br, "dropped"), calib,
               age > 3 ? " (no status for a while: the bridge is gone?)" : "");
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "errors")) {
        const cJSON *what = cJSON_GetObjectItemCaseSensitive(e, "error");
        char *raw = cJSON_IsString(what) ? NULL : cJSON_PrintUnformatted(e);
        printf("ERROR from %s (%s, %.0f s ago): %s\n", field_str(e, "src"), field_str(e, "topic"),
               field_num(e, "age_s"), raw ? raw : cJSON_IsString(what) ? what->valuestring : "?");
        free(raw);
    }
}

/* A command's reply: one line per module that answered (or was waited for in vain),
 * then the verdict. Refusals go to stderr, so a script sees them beside the status. */
static void print_answers(const cJSON *r, bool ok)
{
    const char *cmd = field_str(r, "cmd");
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(r, "acted"))
        printf("%s: done by %s\n", cmd, cJSON_IsString(it) ? it->valuestring : "?");
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(r, "refused"))
        fprintf(stderr, "%s: REFUSED by %s: %s\n", cmd, field_str(it, "module"), field_str(it, "error"));
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(r, "silent"))
        fprintf(stderr, "%s: NO ANSWER from %s\n", cmd, cJSON_IsString(it) ? it->valuestring : "?");
    if (ok) printf("%s: ok\n", cmd);
    else fprintf(stderr, "simctl: %s: %s\n", cmd, field_str(r, "error"));
}

static int request_and_print(const char *url, const char *token, cJSON *req, bool table)
{
    if (token) cJSON_AddStringToObject(req, "token", token);
    char *text = cJSON_PrintUnformatted(req);
    if (!text) {
        fprintf(stderr, "simctl: out of memory\n");
        return 1;
    }
    char err[512];
    char *reply = simctl_control_request(url, text, SIMCTL_CONTROL_TIMEOUT_MS, err, sizeof err);
    free(text);
    if (!reply) {
        fprintf(stderr, "simctl: %s\n", err);
        return 1;
    }
    cJSON *r = cJSON_Parse(reply);
    int ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"));
    if (table && ok) {
        print_status_table(r);
    } else if (cJSON_GetObjectItemCaseSensitive(r, "acted")) {
        print_answers(r, ok);
    } else if (ok) {
        printf("%s\n", reply);
    } else {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
        fprintf(stderr, "simctl: %s\n", cJSON_IsString(e) ? e->valuestring : reply);
    }
    cJSON_Delete(r);
    free(reply);
    return ok ? 0 : 1;
}

int simctl_cmd_control(int argc, char **argv)
{
    const char *url = SIMCTL_DEFAULT_CONTROL, *token = NULL;
    sim_opt opts[] = {
        {"control", SIM_OPT_STRING, &url, "URL", "control endpoint (default tcp://127.0.0.1:7701)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token, when the dispatcher requires one"},
    };
    char usage[128];
    snprintf(usage, sizeof usage, "simctl %s [ARGS] [--control URL] [--token T]", argv[0]);
    int npos = 0;
    int rc = sim_cli_parse(usage, "Sends an operator command to the running session.", opts, 2, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    char why[256];
    cJSON *req = build_request(argv[0], npos, argv + 1, why, sizeof why);
    if (!req) {
        fprintf(stderr, "simctl: %s\n", why);
        return 2;
    }
    rc = request_and_print(url, token, req, false);
    cJSON_Delete(req);
    return rc;
}

int simctl_cmd_status(int argc, char **argv)
{
    const char *url = SIMCTL_DEFAULT_CONTROL, *token = NULL;
    bool json = false;
    sim_opt opts[] = {
        {"control", SIM_OPT_STRING, &url, "URL", "control endpoint (default tcp://127.0.0.1:7701)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token, when the dispatcher requires one"},
        {"json", SIM_OPT_FLAG, &json, NULL, "print the reply as JSON"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl status [--json]", "Modules joined, message rates, drops and errors.", opts, 3,
                           argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos) {
        fprintf(stderr, "simctl status: unexpected argument '%s' (status takes options only)\n", argv[1]);
        return 2;
    }
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "cmd", "status");
    rc = request_and_print(url, token, req, !json);
    cJSON_Delete(req);
    return rc;
}
