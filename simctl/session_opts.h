/* session_opts: the options a lab's session starts with (who drives, fullscreen, which
 * display, a screens file, the render quality, the console), shared by `simctl run`
 * (its command line) and `simctl study run` (its command line over the study file's
 * "session" section): one option table, one check, one way to hand them to a drive. */
#ifndef SIMCTL_SESSION_OPTS_H
#define SIMCTL_SESSION_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "screens.h"
#include "sim_cli.h"
#include "sim_error.h"
#include "sim_study.h"

#define SESSION_OPTS_N 6 /* rows session_opts_rows writes */

typedef struct session_opts {
    const char *driver, *screens_file, *quality, *console_addr; /* NULL: unset */
    int display;                                                 /* -1: unset */
    bool fullscreen;
} session_opts;

/* Everything unset. */
void session_opts_init(session_opts *o);
/* The option table rows (--driver, --fullscreen, --display, --screens, --quality,
 * --console) targeting o, into rows[SESSION_OPTS_N]. */
void session_opts_rows(session_opts *o, sim_opt *rows);
/* A `--console` without an address gets the console's default address, in argv, before
 * sim_cli_parse (whose table knows only options with a value or none). */
void session_opts_console_default(int argc, char **argv);
/* Checks o; the errors name the field as `--quality` (file NULL: a command line) or as
 * `FILE: session.quality`. With screens non-NULL the screens file is loaded into it
 * (left empty, front -1, when there is none). SIM_OK or the first error's code. */
int session_opts_check(const session_opts *o, const char *file, run_screens *screens, sim_error *err);
/* The study file's section as options (pointing into sess; screens, relative to the
 * study file, resolved against dir into screens_buf). */
void session_opts_from_study(session_opts *o, const sim_study_session *sess, const char *dir, char *screens_buf,
                             size_t size);
/* Fills what o leaves unset from under (the command line over the study file). */
void session_opts_merge(session_opts *o, const session_opts *under);
/* o as `simctl run` options appended to argv at *n (room for 9 more; the console not,
 * the study runner starts that once for the day); display_buf: 16 bytes kept while
 * argv is used. */
void session_opts_argv(const session_opts *o, char **argv, int *n, char *display_buf);

#endif
