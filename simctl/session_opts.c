/* session_opts: a lab's session options for simctl run and simctl study run (see
 * session_opts.h). */
#include "session_opts.h"

#include <stdio.h>
#include <string.h>

#include "sim_bus.h"
#include "simctl.h"

void session_opts_init(session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->display = -1;
}

void session_opts_rows(session_opts *o, sim_opt *rows)
{
    const sim_opt r[SESSION_OPTS_N] = {
        {"driver", SIM_OPT_STRING, &o->driver, "script|wheel|keyboard|scenario", "who drives (default: script when headless, else wheel if found, else keyboard; scenario: an OpenSCENARIO storyboard drives its ego)"},
        {"fullscreen", SIM_OPT_FLAG, &o->fullscreen, NULL, "the driver's view fullscreen (on --display)"},
        {"display", SIM_OPT_INT, &o->display, "N", "display of the driver's view (default 0)"},
        {"screens", SIM_OPT_STRING, &o->screens_file, "FILE", "the views to start and where (side screens, mirrors; docs/render.md)"},
        {"quality", SIM_OPT_STRING, &o->quality, "PRESET", "the render nodes' quality: low (60 fps on llvmpipe), medium or high (default: low on a software renderer, else medium)"},
        {"console", SIM_OPT_STRING, &o->console_addr, "[HOST:PORT]",
         "also start the web console (docs/console.md) there (default " SIMCTL_DEFAULT_CONSOLE "); off loopback it needs --token"},
    };
    memcpy(rows, r, sizeof r);
}

void session_opts_console_default(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return;
        if (strcmp(argv[i], "--console") == 0 && (i + 1 >= argc || argv[i + 1][0] == '-' || !strchr(argv[i + 1], ':')))
            argv[i] = (char *)"--console=" SIMCTL_DEFAULT_CONSOLE;
    }
}

static bool in_list(const char *v, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(v, names[i])) return true;
    return false;
}

/* "--quality" or "FILE: session.quality" */
static const char *field(const char *file, const char *key, char *buf, size_t size)
{
    if (file) snprintf(buf, size, "%s: session.%s", file, key);
    else snprintf(buf, size, "--%s", key);
    return buf;
}

int session_opts_check(const session_opts *o, const char *file, run_screens *screens, sim_error *err)
{
    char f[600];
    if (screens) {
        memset(screens, 0, sizeof *screens);
        screens->front = -1;
    }
    if (o->quality && !in_list(o->quality, sim_session_quality_names))
        return sim_error_set(err, SIM_EINVAL, "%s must be low, medium or high, not \"%s\"",
                             field(file, "quality", f, sizeof f), o->quality);
    if (o->driver && !in_list(o->driver, sim_session_driver_names))
        return sim_error_set(err, SIM_EINVAL, "%s must be script, wheel, keyboard or scenario, not \"%s\"",
                             field(file, "driver", f, sizeof f), o->driver);
    if (o->display < -1 || o->display > SIM_SESSION_DISPLAY_MAX)
        return sim_error_set(err, SIM_EINVAL, "%s expects 0..%d, not %d", field(file, "display", f, sizeof f),
                             SIM_SESSION_DISPLAY_MAX, o->display);
    char host[256];
    int port;
    sim_error e = {0};
    if (o->console_addr && sim_bus_parse_endpoint(o->console_addr, host, sizeof host, &port, &e) != SIM_OK)
        return sim_error_set(err, SIM_EINVAL, "%s: %s", field(file, "console", f, sizeof f), e.msg);
    if (o->screens_file && screens && run_screens_load(o->screens_file, screens, &e) != SIM_OK)
        return sim_error_set(err, e.code ? e.code : SIM_EINVAL, "%s: %s", field(file, "screens", f, sizeof f), e.msg);
    return SIM_OK;
}

void session_opts_from_study(session_opts *o, const sim_study_session *sess, const char *dir, char *screens_buf,
                             size_t size)
{
    session_opts_init(o);
    o->fullscreen = sess->fullscreen;
    o->display = sess->display;
    if (sess->quality[0]) o->quality = sess->quality;
    if (sess->driver[0]) o->driver = sess->driver;
    if (sess->console) o->console_addr = sess->console_addr[0] ? sess->console_addr : SIMCTL_DEFAULT_CONSOLE;
    if (sess->screens[0]) {
        if (sess->screens[0] == '/') snprintf(screens_buf, size, "%s", sess->screens);
        else snprintf(screens_buf, size, "%s/%s", dir, sess->screens);
        o->screens_file = screens_buf;
    }
}

void session_opts_merge(session_opts *o, const session_opts *under)
{
    if (!o->driver) o->driver = under->driver;
    if (!o->screens_file) o->screens_file = under->screens_file;
    if (!o->quality) o->quality = under->quality;
    if (!o->console_addr) o->console_addr = under->console_addr;
    if (o->display < 0) o->display = under->display;
    o->fullscreen |= under->fullscreen;
}

void session_opts_argv(const session_opts *o, char **argv, int *n, char *display_buf)
{
    if (o->driver) argv[(*n)++] = "--driver", argv[(*n)++] = (char *)o->driver;
    if (o->fullscreen) argv[(*n)++] = "--fullscreen";
    if (o->display >= 0) {
        snprintf(display_buf, 16, "%d", o->display);
        argv[(*n)++] = "--display", argv[(*n)++] = display_buf;
    }
    if (o->screens_file) argv[(*n)++] = "--screens", argv[(*n)++] = (char *)o->screens_file;
    if (o->quality) argv[(*n)++] = "--quality", argv[(*n)++] = (char *)o->quality;
}
