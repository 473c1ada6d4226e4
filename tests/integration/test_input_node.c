/* Integration tests of bin/input-node through a real bin/dispatcher on loopback:
 * a virtual wheel (SDL_JoystickAttachVirtual inside the node, driven by the hidden
 * --virtual-test-script option) must come out as the right input.controls and
 * input.button, survive being unplugged and plugged in again, and lockstep replay
 * must answer each sim.tick with the recorded controls and then sim.ack. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_input_map.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"

#include "ts_assert.h"

/* What a test started, so that teardown stops it even after a failed assertion. */
static pid_t g_node;
static ts_dispatcher g_disp;
static ts_conn *g_conn;
static char g_file[64];

static int teardown(void **state)
{
    if (g_node > 0) ts_stop(g_node, SIGKILL, 1000);
    g_node = 0;
    if (g_disp.pid > 0) ts_dispatcher_stop(&g_disp);
    g_disp.pid = 0;
    ts_close(g_conn);
    g_conn = NULL;
    if (g_file[0]) unlink(g_file);
    g_file[0] = '\0';
    return 0;
}

/* Starts a dispatcher, joins it as `name` with the given subscriptions, and starts
 * input-node on it with args (NULL-terminated) after --bus. All three are stopped by
 * teardown. Returns the test's connection. */
static ts_conn *start_session(const char *name, const char *subscribe, const char *const *args)
{
    assert_true(ts_dispatcher_start(&g_disp, NULL));
    g_conn = ts_join(g_disp.port, name, subscribe, NULL);
    assert_non_null(g_conn);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", g_disp.port);
    char *argv[32] = {"input-node", "--bus", bus};
    int n = 3;
    while (*args && n < 31) argv[n++] = (char *)*args++;
    argv[n] = NULL;
    g_node = ts_spawn(argv, false);
    assert_true(g_node > 0);
    return g_conn;
}

/* Writes text to a new temporary file named in g_file. */
static void write_file(const char *text)
{
    snprintf(g_file, sizeof g_file, "/tmp/test_input_node_XXXXXX");
    int fd = mkstemp(g_file);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The default mapping (no mapping file matches the virtual wheel): axis 0 steering
 * over 900 degrees, axes 2/3/1 throttle/brake/clutch released at +32767, button 5 the
 * left indicator, hat 0 up the menu. */
static const char wheel_script[] =
    "wheel axes 4 buttons 12 hats 1\n"
    "0.00 axis 1 32767\n"
    "0.00 axis 2 32767\n"
    "0.00 axis 3 32767\n"
    "0.20 axis 0 -32768   # fully left\n"
    "0.20 axis 2 -32768   # throttle floored\n"
    "0.40 button 5 1\n"
    "0.50 button 5 0\n"
    "0.55 hat 0 1\n"
    "0.60 hat 0 0\n"
    "0.70 detach\n"
    "0.90 attach\n"
    "0.90 axis 1 32767\n"
    "0.90 axis 2 32767\n"
    "0.90 axis 3 -32768   # brake floored\n"
    "0.90 axis 0 32767    # fully right\n";

enum { WAIT_LEFT, WAIT_IND_ON, WAIT_IND_OFF, WAIT_MENU_ON, WAIT_MENU_OFF, WAIT_RELEASED,
       WAIT_RIGHT, DONE };

static void virtual_wheel_end_to_end(void **state)
{
    write_file(wheel_script);
    ts_conn *tap = start_session("tap", "[\"input.\"]",
        (const char *const[]){"--device", "auto", "--mapping-dir", "/nonexistent",
                              "--virtual-test-script", g_file, NULL});

    /* Walk through the expected story; every step must be seen in order. */
    int phase = WAIT_LEFT;
    long last_seq = 0;
    double end = ts_now_ms() + 30000; /* generous: a loaded machine only makes it slower */
    static char line[1 << 16];
    while (phase != DONE && ts_now_ms() < end) {
        if (ts_read_line(tap, line, sizeof line, 200) <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        assert_non_null(m);
        if (strncmp(str(m, "topic"), "input.", 6) != 0) { /* dispatcher.* news */
            cJSON_Delete(m);
            continue;
        }
        assert_string_equal(str(m, "src"), "input");
        long seq = (long)num(m, "seq");
        assert_true(seq > last_seq); /* one sender, increasing */
        last_seq = seq;
        const char *topic = str(m, "topic");
        if (strcmp(topic, "input.controls") == 0) {
            double steer = num(m, "steer"), deg = num(m, "steer_deg");
            double thr = num(m, "throttle"), brk = num(m, "brake"), clu = num(m, "clutch");
            NEAR(deg, steer * 450.0, 1e-9);
            if (phase == WAIT_LEFT && steer == 1.0 && thr == 1.0) {
                NEAR(deg, 450.0, 0);
                NEAR(brk, 0.0, 0);
                NEAR(clu, 0.0, 0);
                phase = WAIT_IND_ON;
            } else if (phase == WAIT_RELEASED && steer == 0 && thr == 0 && brk == 0 && clu == 0) {
                phase = WAIT_RIGHT; /* unplugged: everything released */
            } else if (phase == WAIT_RIGHT && steer == -1.0 && brk == 1.0) {
                NEAR(deg, -450.0, 0);
                NEAR(thr, 0.0, 0);
                phase = DONE;
            }
        } else if (strcmp(topic, "input.button") == 0) {
            const char *role = str(m, "role");
            bool pressed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "pressed"));
            if (phase == WAIT_IND_ON && strcmp(role, "indicator_left") == 0 && pressed)
                phase = WAIT_IND_OFF;
            else if (phase == WAIT_IND_OFF && strcmp(role, "indicator_left") == 0 && !pressed)
                phase = WAIT_MENU_ON;
            else if (phase == WAIT_MENU_ON && strcmp(role, "menu_up") == 0 && pressed)
                phase = WAIT_MENU_OFF;
            else if (phase == WAIT_MENU_OFF && strcmp(role, "menu_up") == 0 && !pressed)
                phase = WAIT_RELEASED;
            else
                fail_msg("unexpected input.button %s in phase %d", line, phase);
        }
        cJSON_Delete(m);
    }
    assert_int_equal(phase, DONE);
    /* SIGTERM: the node fades its force feedback out and exits cleanly. */
    int st = ts_stop(g_node, SIGTERM, 10000); /* generous: the fade is judged from the log, not the clock */
    g_node = 0;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static const char replay_text[] =
    "{\"topic\":\"input.controls\",\"t\":0.0,\"steer\":0.1,\"steer_deg\":45,\"throttle\":0.2,\"brake\":0}\n"
    "{\"topic\":\"input.controls\",\"t\":0.05,\"steer\":-0.3,\"steer_deg\":-135,\"throttle\":0,\"brake\":0.5,\"gear\":2}\n";

static void lockstep_replay_answers_every_tick(void **state)
{
    write_file(replay_text);
    ts_conn *phys = start_session("physics", "[\"input.\",\"sim.ack\",\"dispatcher.joined\"]",
        (const char *const[]){"--driver", "script", "--replay", g_file, "--lockstep", NULL});
    cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    assert_string_equal(str(j, "name"), "input");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "lockstep")));
    cJSON_Delete(j);

    static char line[1 << 16];
    for (int n = 0; n < 10; n++) {
        char tick[160];
        snprintf(tick, sizeof tick,
                 "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%d,\"t\":%.2f,\"n\":%d,"
                 "\"dt\":0.01,\"run\":0,\"paused\":false}",
                 n + 1, n * 0.01, n);
        assert_true(ts_send_line(phys, tick));
        /* Exactly the controls for this tick, then the ack: nothing else between. */
        assert_true(ts_read_line(phys, line, sizeof line, 10000) > 0);
        cJSON *c = cJSON_Parse(line);
        assert_string_equal(str(c, "topic"), "input.controls");
        NEAR(num(c, "t"), n * 0.01, 1e-12);
        if (n < 5) {
            NEAR(num(c, "steer"), 0.1, 0);
            NEAR(num(c, "steer_deg"), 45, 0);
            NEAR(num(c, "throttle"), 0.2, 0);
            assert_null(cJSON_GetObjectItemCaseSensitive(c, "gear"));
        } else {
            NEAR(num(c, "steer"), -0.3, 0);
            NEAR(num(c, "brake"), 0.5, 0);
            NEAR(num(c, "gear"), 2, 0);
        }
        cJSON_Delete(c);
        assert_true(ts_read_line(phys, line, sizeof line, 10000) > 0);
        cJSON *a = cJSON_Parse(line);
        assert_string_equal(str(a, "topic"), "sim.ack");
        NEAR(num(a, "n"), n, 0);
        cJSON_Delete(a);
    }
    /* No tick, no controls: lockstep publishes nothing on its own. */
    assert_int_equal(ts_read_line(phys, line, sizeof line, 300), 0);
    int st = ts_stop(g_node, SIGTERM, 10000); /* generous: the fade is judged from the log, not the clock */
    g_node = 0;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* A mapping file in --mapping-dir matched by the device's name replaces the default:
 * here steering inverted over 540 degrees, a combined pedal axis, the horn on
 * button 2, and an H-shifter. */
static const char custom_map[] =
    "{\"format\":\"sim-input-map/1\",\"name\":\"test\",\"match\":{\"name\":\"virtual TEST wheel\"},"
    "\"steering_range_deg\":540,"
    "\"axes\":{\"steer\":{\"axis\":0,\"invert\":true},\"pedals\":{\"axis\":1}},"
    "\"buttons\":{\"horn\":2},\"hshifter\":{\"gears\":[6,7,8],\"reverse\":9}}";

static const char custom_script[] =
    "wheel axes 2 buttons 12 hats 0\n"
    "0.30 axis 0 -32768\n"
    "0.30 axis 1 32767\n"
    "0.30 button 7 1\n"
    "0.60 button 2 1\n";

static void mapping_file_matched_by_name(void **state)
{
    char dir[] = "/tmp/test_input_maps_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char map_path[128], script_path[128];
    snprintf(map_path, sizeof map_path, "%s/test.json", dir);
    snprintf(script_path, sizeof script_path, "%s/script.txt", dir);
    FILE *f = fopen(map_path, "w");
    fputs(custom_map, f);
    fclose(f);
    f = fopen(script_path, "w");
    fputs(custom_script, f);
    fclose(f);
    ts_conn *tap = start_session("tap", "[\"input.\"]",
        (const char *const[]){"--driver", "wheel", "--mapping-dir", dir, "--virtual-test-script",
                              script_path, NULL});
    bool controls_ok = false, horn = false;
    double end = ts_now_ms() + 30000;
    static char line[1 << 16];
    while (!(controls_ok && horn) && ts_now_ms() < end) {
        if (ts_read_line(tap, line, sizeof line, 200) <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        const char *topic = str(m, "topic");
        if (strcmp(topic, "input.controls") == 0 && num(m, "steer") == -1.0) {
            /* Inverted: raw minimum is right; 540 degrees lock to lock; the combined
             * axis at its maximum is full brake; shifter button 7 is second gear. */
            NEAR(num(m, "steer_deg"), -270, 0);
            NEAR(num(m, "brake"), 1, 0);
            NEAR(num(m, "throttle"), 0, 0);
            NEAR(num(m, "gear"), 2, 0);
            controls_ok = true;
        } else if (strcmp(topic, "input.button") == 0) {
            assert_string_equal(str(m, "role"), "horn");
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "pressed")));
            horn = true;
        }
        cJSON_Delete(m);
    }
    assert_true(controls_ok);
    assert_true(horn);
    unlink(map_path);
    unlink(script_path);
    rmdir(dir);
}

/* Every mapping shipped in config/input loads. */
static void shipped_mappings_load(void **state)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", ts_root("config/input"));
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".json")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        sim_input_map m;
        sim_error err = {0};
        if (sim_input_map_load(path, &m, &err)) fail_msg("%s", err.msg);
        assert_true(m.axes[SIM_AXIS_STEER].used);
        n++;
    }
    closedir(d);
    assert_true(n >= 1);
}

/* One lockstep drive of the scripted driver against a stand-in for physics (a
 * kinematic bicycle with a toy drivetrain, stepped here) from the lane-change track's
 * "sector2" start at 60 km/h. Returns the FNV-1a hash of every input.controls line
 * and fills the final arc length and speed and the largest deviation from task T2's
 * ideal lane. */
static uint64_t script_drive(const sim_scenario *sc, const char *scen, int ticks, double *s_out,
                             double *v_out, double *max_dev_out)
{
    const sim_start_point *st = &sc->starts[sim_scenario_find_start(sc, "sector2")];
    const sim_task *task = &sc->tasks[sim_scenario_find_task(sc, "T2")];
    ts_conn *phys = start_session("physics", "[\"input.\",\"sim.ack\",\"dispatcher.joined\"]",
        (const char *const[]){"--driver", "script", "--scenario", scen, "--start", "sector2",
                              "--lockstep", NULL});
    cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);

    /* Rear axle 1.35 m behind the reported position, wheelbase 2.7 m, steering ratio
     * 15 (the scripted driver's defaults). */
    static const double ratios[] = {0, 3.5, 2.1, 1.4, 1.0, 0.8, 0.65};
    const double b = 1.35, L = 2.7, ratio = 15, dt = 0.02;
    double psi = st->heading, xr = st->x - b * cos(psi), yr = st->y - b * sin(psi);
    double v = st->speed, max_dev = 0, t = 0;
    int gear = 3;
    uint64_t hash = 1469598103934665603ull;
    static char line[1 << 16];
    for (int n = 0; n < ticks; n++, t += dt) {
        double rpm = v / 0.31 * 60 / (2 * M_PI) * ratios[gear] * 3.9;
        char msg[512];
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%d,\"t\":%.3f,"
                 "\"speed\":%.17g,\"pos\":[%.17g,%.17g,0],\"heading\":%.17g,\"yaw_rate\":0,"
                 "\"gear\":%d,\"rpm\":%.17g}",
                 2 * n + 1, t, v, xr + b * cos(psi), yr + b * sin(psi), psi, gear, rpm);
        assert_true(ts_send_line(phys, msg));
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%d,\"t\":%.3f,\"n\":%d,"
                 "\"dt\":%g,\"run\":0,\"paused\":false}",
                 2 * n + 2, t, n, dt);
        assert_true(ts_send_line(phys, msg));
        assert_true(ts_read_line(phys, line, sizeof line, 10000) > 0);
        for (const char *p = line; *p; p++) hash = (hash ^ (uint8_t)*p) * 1099511628211ull;
        cJSON *c = cJSON_Parse(line);
        assert_string_equal(str(c, "topic"), "input.controls");
        double delta = num(c, "steer_deg") / ratio * M_PI / 180;
        double acc = 3.0 * num(c, "throttle") - 8.0 * num(c, "brake") - 0.2 - 0.0004 * v * v;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "gear");
        if (cJSON_IsNumber(g)) gear = g->valueint;
        assert_true(gear >= 1 && gear <= 6);
        cJSON_Delete(c);
        cJSON *a = ts_expect_topic(phys, "sim.ack", 10000, NULL, 0);
        assert_non_null(a);
        NEAR(num(a, "n"), n, 0);
        cJSON_Delete(a);
        xr += v * cos(psi) * dt;
        yr += v * sin(psi) * dt;
        psi += v / L * tan(delta) * dt;
        v = fmax(0, v + acc * dt);
        double s, d, dist;
        bool inside;
        sim_road_project(&sc->net.roads[task->road], xr + b * cos(psi), yr + b * sin(psi), &s, &d,
                         &dist, &inside);
        if (s >= task->s_start && s <= task->s_end)
            max_dev = fmax(max_dev, fabs(d - sim_task_ideal_d(task, s)));
        *s_out = s;
    }
    *v_out = v;
    *max_dev_out = max_dev;
    teardown(NULL);
    return hash;
}

/* The scripted driver follows the ideal lane through the first two lane changes of
 * task T2 inside the driving tube at the speed limit, and two runs answer every tick
 * with byte-identical input.controls. */
static void lockstep_script_follows_ideal_lane(void **state)
{
    const char *scen = ts_root("scenarios/lane-change.json");
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(scen, &sc, NULL), SIM_OK);
    const sim_task *task = &sc->tasks[sim_scenario_find_task(sc, "T2")];
    double s, v, dev, s2, v2, dev2;
    uint64_t h1 = script_drive(sc, scen, 1300, &s, &v, &dev);
    printf("# scripted driver: s %.1f m, speed %.2f m/s, max deviation in T2 %.3f m\n", s, v, dev);
    assert_true(s > 1760 + 60);         /* past the second lane change and its ramp */
    assert_true(dev < 0.5);             /* half the tube (1.0 m each side) */
    assert_true(dev < task->tube_half_width);
    NEAR(v, 60 / 3.6, 0.3);
    uint64_t h2 = script_drive(sc, scen, 1300, &s2, &v2, &dev2);
    assert_true(h1 == h2);
    assert_true(s == s2 && v == v2 && dev == dev2);
    sim_scenario_free(sc);
}

/* Force feedback through the real node (the virtual wheel has no motor, so the node's
 * --ffb-log shows what it would play, with its own clock): ffb.command torque 0.5
 * plays at level 0.5 * 32767; the level is zero 90 ms after commands stop, 50 ms
 * after physics pauses although commands keep coming, and 50 ms after SIGTERM, and the
 * node exits only after that.
 *
 * The node's log is line-buffered and every step waits for the log to show what it
 * needs (full level, zero, ...) with a generous deadline: the times judged are the
 * node's own, so a loaded machine only makes the test slower. */
typedef struct ffb_line {
    double t;
    int level;     /* effect lines */
    char event[16]; /* event lines: "command", "paused", ... ("" for effect lines) */
} ffb_line;

enum { FFB_MAX_LINES = 200000, FFB_FULL = 16384 };
static ffb_line g_ffb[FFB_MAX_LINES];

/* Reads the complete lines of the log (a last partial line is left for later);
 * returns how many. */
static int ffb_read(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[512];
    int n = 0;
    while (n < FFB_MAX_LINES && fgets(buf, sizeof buf, f)) {
        if (!strchr(buf, '\n')) break;
        cJSON *m = cJSON_Parse(buf);
        if (!m) fail_msg("ffb log line %d not JSON: %s", n + 1, buf);
        g_ffb[n].t = num(m, "t");
        snprintf(g_ffb[n].event, sizeof g_ffb[n].event, "%s", str(m, "event"));
        g_ffb[n].level = g_ffb[n].event[0] ? 0 : (int)num(m, "level");
        n++;
        cJSON_Delete(m);
    }
    fclose(f);
    return n;
}

static int g_cmds_sent;

static void send_command(ts_conn *c, int *seq)
{
    g_cmds_sent++;
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"ffb.command\",\"src\":\"physics\",\"seq\":%d,\"t\":0,\"torque\":0.5}", ++*seq);
    assert_true(ts_send_line(c, msg));
}

static void send_pause(ts_conn *c, bool paused, int *seq)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%d,\"t\":0,\"n\":0,\"dt\":0.01,"
             "\"run\":0,\"paused\":%s}",
             ++*seq, paused ? "true" : "false");
    assert_true(ts_send_line(c, msg));
}

/* What a step waits for in the log, looking at lines from `from` on. */
typedef bool ffb_done_fn(int from, int n, const void *arg);

/* Sends a command every 10 ms (if commands) until done() holds for the log; fails
 * after a generous deadline. Returns the number of lines read. */
static int ffb_until(const char *path, ts_conn *c, int *seq, bool commands, int from,
                     ffb_done_fn *done, const void *arg, const char *what)
{
    for (double end = ts_now_ms() + 30000; ts_now_ms() < end; ts_sleep_ms(10)) {
        if (commands) send_command(c, seq);
        int n = ffb_read(path);
        if (done(from, n, arg)) return n;
    }
    fail_msg("ffb log: no %s within 30 s", what);
    return 0;
}

static bool has_full(int from, int n, const void *arg)
{
    for (int i = from; i < n; i++)
        if (!g_ffb[i].event[0] && g_ffb[i].level == FFB_FULL) return true;
    return false;
}

/* Every command sent is in the log, and an effect line 90 ms after the last. */
static bool quiet_after_last(int from, int n, const void *arg)
{
    int cmds = 0, last = -1;
    for (int i = 0; i < n; i++)
        if (strcmp(g_ffb[i].event, "command") == 0) cmds++, last = i;
    if (cmds != g_cmds_sent) return false;
    for (int i = last + 1; i < n; i++)
        if (!g_ffb[i].event[0] && g_ffb[i].t >= g_ffb[last].t + 0.09) return true;
    return false;
}

static int ffb_find(int from, int n, const char *ev)
{
    for (int i = from; i < n; i++)
        if (strcmp(g_ffb[i].event, ev) == 0) return i;
    fail_msg("no %s event in the ffb log", ev);
    return -1;
}

/* Every effect line in [from_t, to_t) has level 0. */
static void ffb_zero_between(int n, double from_t, double to_t)
{
    for (int i = 0; i < n; i++)
        if (!g_ffb[i].event[0] && g_ffb[i].t >= from_t && g_ffb[i].t < to_t && g_ffb[i].level != 0)
            fail_msg("level %d at %.4f s, expected 0 from %.4f s", g_ffb[i].level, g_ffb[i].t, from_t);
}

/* The paused event, at least 6 commands after it and an effect line 60 ms after it. */
static bool paused_and_held(int from, int n, const void *arg)
{
    int p = from, cmds = 0;
    while (p < n && strcmp(g_ffb[p].event, "paused") != 0) p++;
    if (p == n) return false;
    bool line = false;
    for (int i = p + 1; i < n; i++) {
        cmds += strcmp(g_ffb[i].event, "command") == 0;
        line |= !g_ffb[i].event[0] && g_ffb[i].t >= g_ffb[p].t + 0.06;
    }
    return cmds >= 6 && line;
}

/* The resumed event and full level after it. */
static bool full_after_resumed(int from, int n, const void *arg)
{
    int r = from;
    while (r < n && strcmp(g_ffb[r].event, "resumed") != 0) r++;
    return r < n && has_full(r, n, NULL);
}

static void ffb_fades_on_silence_pause_and_exit(void **state)
{
    write_file("wheel axes 4 buttons 12 hats 1\n");
    char log_path[] = "/tmp/test_input_ffb_XXXXXX";
    int fd = mkstemp(log_path);
    assert_true(fd >= 0);
    close(fd);
    ts_conn *phys = start_session("physics", "[\"dispatcher.joined\"]",
        (const char *const[]){"--driver", "wheel", "--mapping-dir", "/nonexistent",
                              "--virtual-test-script", g_file, "--ffb-log", log_path, NULL});
    cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    int seq = 0, n = 0;
    g_cmds_sent = 0;

    /* Silence: commands until full level (0.5 * 32767 = 16383.5, gain 1, limit 0.8),
     * then none until the level is zero. The level must be zero from 90 ms after the
     * last command, and a line while it fades (between 0 and full 45..85 ms after)
     * shows the fade; should the node's timer have been held up through that window
     * on a loaded machine, the round is played again. */
    bool fading = false;
    int round = 0;
    for (; round < 10 && !fading; round++) {
        int from = n;
        n = ffb_until(log_path, phys, &seq, true, from, has_full, NULL, "full level");
        n = ffb_until(log_path, phys, &seq, false, from, quiet_after_last, NULL, "line 90 ms after the last command");
        int last_cmd = n - 1;
        while (strcmp(g_ffb[last_cmd].event, "command") != 0) last_cmd--;
        ffb_zero_between(n, g_ffb[last_cmd].t + 0.09, 1e9);
        bool full_before = false;
        for (int i = from; i < last_cmd; i++)
            if (!g_ffb[i].event[0]) full_before = g_ffb[i].level == FFB_FULL;
        for (int i = last_cmd + 1; i < n; i++) {
            double dt = g_ffb[i].t - g_ffb[last_cmd].t;
            if (full_before && dt > 0.045 && dt < 0.085 && g_ffb[i].level > 0 && g_ffb[i].level < FFB_FULL)
                fading = true;
        }
    }
    if (!fading) fail_msg("no line while fading out in 10 rounds");
    printf("# fade seen in silence round %d\n", round);

    /* Pause: zero 50 ms after, until resumed, though commands keep coming. */
    n = ffb_until(log_path, phys, &seq, true, n, has_full, NULL, "full level before pausing");
    int from = n;
    send_pause(phys, true, &seq);
    n = ffb_until(log_path, phys, &seq, true, from, paused_and_held, NULL, "paused event, 6 commands and a line 60 ms after");
    int ip = ffb_find(from, n, "paused");
    double tp = g_ffb[ip].t;
    send_pause(phys, false, &seq);
    n = ffb_until(log_path, phys, &seq, true, from, full_after_resumed, NULL, "full level after resuming");
    int ir = ffb_find(ip, n, "resumed");
    int cmds_paused = 0;
    for (int i = ip; i < ir; i++) cmds_paused += strcmp(g_ffb[i].event, "command") == 0;
    assert_true(cmds_paused >= 6);
    ffb_zero_between(n, tp + 0.05, g_ffb[ir].t);

    /* SIGTERM: zero from 50 ms after the exit began to the end, and the node exits 0.
     * Commands after SIGTERM change nothing. */
    kill(g_node, SIGTERM);
    for (int i = 0; i < 10; i++) {
        send_command(phys, &seq);
        ts_sleep_ms(10);
    }
    /* Only wait: a second SIGTERM could arrive after the node restored the default
     * action on its way out and kill it (seen under load, with tests in parallel). */
    int st = ts_stop(g_node, 0, 30000);
    g_node = 0;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    n = ffb_read(log_path);
    unlink(log_path);
    int ie = ffb_find(ir, n, "exit");
    double te = g_ffb[ie].t;
    /* The fade may reach zero a moment before te + 0.05 and the node then writes no
     * more lines, so that window may be empty; the last line must be zero. */
    ffb_zero_between(n, te + 0.05, 1e9);
    int last_effect = n - 1;
    while (last_effect > ie && g_ffb[last_effect].event[0]) last_effect--;
    assert_true(last_effect > ie);
    assert_int_equal(g_ffb[last_effect].level, 0);
}


/* The tactile DRT stimulus (docs/tasks.md): while a drt.stimulus with modality
 * "tactile" is on, the wheel vibrates at 40 Hz (period 25 ms) with 60 % of full
 * magnitude (0.6 * 32767 = 19660) over the steering torque; after the stimulus's end
 * the vibration stops. Read from the node's --ffb-log. */
static int ffb_rumble_after(const char *path, double after_t, int *period)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[512];
    int rumble = -1;
    while (fgets(buf, sizeof buf, f)) {
        cJSON *m = cJSON_Parse(buf);
        if (m && !cJSON_GetObjectItemCaseSensitive(m, "event") && num(m, "t") > after_t) {
            rumble = (int)num(m, "rumble");
            if (period) *period = (int)num(m, "period_ms");
        }
        cJSON_Delete(m);
    }
    fclose(f);
    return rumble;
}

static void drt_tactile_stimulus_vibrates_the_wheel(void **state)
{
    write_file("wheel axes 4 buttons 12 hats 1\n");
    char log_path[] = "/tmp/test_input_drt_XXXXXX";
    int fd = mkstemp(log_path);
    assert_true(fd >= 0);
    close(fd);
    ts_conn *c = start_session("physics", "[\"dispatcher.joined\"]",
        (const char *const[]){"--driver", "wheel", "--mapping-dir", "/nonexistent",
                              "--virtual-test-script", g_file, "--ffb-log", log_path, NULL});
    cJSON *j = ts_expect_topic(c, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    int seq = 0, period = 0, rumble = -1;
    /* Steering torque, then the stimulus: wait until the log shows the vibration. */
    for (double end = ts_now_ms() + 30000; ts_now_ms() < end && rumble != 19660; ts_sleep_ms(10)) {
        send_command(c, &seq);
        char msg[200];
        snprintf(msg, sizeof msg, "{\"topic\":\"drt.stimulus\",\"src\":\"task\",\"seq\":%d,\"t\":1,\"id\":1,"
                 "\"modality\":\"tactile\",\"on\":true}", ++seq);
        assert_true(ts_send_line(c, msg));
        rumble = ffb_rumble_after(log_path, 0, &period);
    }
    assert_int_equal(rumble, 19660);
    assert_int_equal(period, 25);
    /* Off: the road rumble of the commands (none) is all that is left. */
    char msg[200];
    snprintf(msg, sizeof msg, "{\"topic\":\"drt.stimulus\",\"src\":\"task\",\"seq\":%d,\"t\":1.4,\"id\":1,"
             "\"modality\":\"tactile\",\"on\":false}", ++seq);
    assert_true(ts_send_line(c, msg));
    for (double end = ts_now_ms() + 30000; ts_now_ms() < end && rumble != 0; ts_sleep_ms(10)) {
        send_command(c, &seq);
        rumble = ffb_rumble_after(log_path, 0, NULL);
    }
    assert_int_equal(rumble, 0);
    unlink(log_path);
}

/* A device SDL knows as a game controller, with no mapping file, gets SDL's layout:
 * left stick steers over 360 degrees, the right trigger (raw axis 5) is the throttle,
 * the left shoulder (button 9) the left indicator. */
static void game_controller_layout(void **state)
{
    write_file("gamepad\n"
               "0.00 axis 4 -32768\n"
               "0.00 axis 5 -32768\n"
               "0.20 axis 0 -32768\n"
               "0.20 axis 5 32767\n"
               "0.40 button 9 1\n");
    ts_conn *tap = start_session("tap", "[\"input.\"]",
        (const char *const[]){"--driver", "wheel", "--mapping-dir", "/nonexistent",
                              "--virtual-test-script", g_file, NULL});
    bool controls_ok = false, indicator = false;
    double end = ts_now_ms() + 30000;
    static char line[1 << 16];
    while (!(controls_ok && indicator) && ts_now_ms() < end) {
        if (ts_read_line(tap, line, sizeof line, 200) <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        const char *topic = str(m, "topic");
        if (strcmp(topic, "input.controls") == 0 && num(m, "steer") == 1.0 && num(m, "throttle") == 1.0) {
            NEAR(num(m, "steer_deg"), 180, 0);
            NEAR(num(m, "brake"), 0, 0);
            controls_ok = true;
        } else if (strcmp(topic, "input.button") == 0) {
            assert_string_equal(str(m, "role"), "indicator_left");
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "pressed")));
            indicator = true;
        }
        cJSON_Delete(m);
    }
    assert_true(controls_ok);
    assert_true(indicator);
}

/* control.restart {at} puts the car at another start point: the scripted driver
 * rebuilds its path from there. Started at "sector2" (s 1400, lane -1), restarted at
 * "start" (s 20, lane -2) with the car 1 m left of lane -2's centre at standstill, it
 * steers right (back into lane -2) and pulls away; with the old path it would aim
 * far ahead at lane -1 and steer slightly left. */
static void restart_rebuilds_the_path(void **state)
{
    const char *scen = ts_root("scenarios/lane-change.json");
    ts_conn *phys = start_session("physics", "[\"input.\",\"sim.ack\",\"dispatcher.joined\"]",
        (const char *const[]){"--driver", "script", "--scenario", scen, "--start", "sector2",
                              "--lockstep", NULL});
    cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    assert_true(ts_send_line(phys, "{\"topic\":\"control.restart\",\"src\":\"dispatcher\",\"seq\":1,"
                                   "\"t\":0,\"at\":\"start\"}"));
    /* Lane -2's centre is at y = -5.25 on this straight road along +x. */
    assert_true(ts_send_line(phys, "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":1,"
                                   "\"t\":0,\"speed\":0,\"pos\":[20,-4.25,0],\"heading\":0,"
                                   "\"yaw_rate\":0,\"gear\":1,\"rpm\":800}"));
    assert_true(ts_send_line(phys, "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":2,\"t\":0,"
                                   "\"n\":0,\"dt\":0.01,\"run\":1,\"paused\":false}"));
    cJSON *c = ts_expect_topic(phys, "input.controls", 10000, NULL, 0);
    assert_non_null(c);
    assert_true(num(c, "steer") < -0.05);
    assert_true(num(c, "throttle") > 0.1);
    NEAR(num(c, "gear"), 1, 0);
    cJSON_Delete(c);
}

/* --calibrate on a virtual wheel: the test script moves it at each prompt (times
 * count prompts in calibration), the answers come on stdin. Prompts: 1 centre,
 * 2 left, 3 right, 4 throttle, 5 brake, 6 clutch (skipped), 7.. one per button role
 * (indicator_left: button 4, indicator_right: hat left, the rest skipped), last the
 * steering range. */
static const char calib_script[] =
    "wheel axes 4 buttons 12 hats 1\n"
    "1 axis 0 100\n"
    "1 axis 1 32767\n"
    "1 axis 2 32767\n"
    "1 axis 3 32767\n"
    "2 axis 0 -32000\n"
    "3 axis 0 31000\n"
    "4 axis 0 100\n"
    "4 axis 2 -32768\n"
    "5 axis 2 32767\n"
    "5 axis 3 -30000\n"
    "6 axis 3 32767\n"
    "7 button 4 1\n"
    "8 button 4 0\n"
    "8 hat 0 8\n"
    "9 hat 0 0\n";

static void calibrate_writes_mapping(void **state)
{
    write_file(calib_script);
    char answers[] = "/tmp/test_input_answers_XXXXXX", out[] = "/tmp/test_input_map_XXXXXX";
    int fd = mkstemp(answers);
    assert_true(fd >= 0);
    /* Enter for the five samples, s for the clutch, nothing for the two buttons
     * pressed, Enter for the other eleven roles (drt among them), then the range. */
    const char *text = "\n\n\n\n\ns\n\n\n\n\n\n\n\n\n\n\n\n540\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char *argv[] = {"input-node", "--calibrate", "--mapping", out, "--virtual-test-script", g_file,
                    NULL};
    int in = open(answers, O_RDONLY), saved = dup(0);
    assert_true(in >= 0 && saved >= 0);
    dup2(in, 0); /* the child's stdin */
    g_node = ts_spawn(argv, false);
    dup2(saved, 0);
    close(saved);
    close(in);
    int st = -1;
    waitpid(g_node, &st, 0);
    g_node = 0;
    unlink(answers);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    sim_input_map m;
    sim_error err = {0};
    int rc = sim_input_map_load(out, &m, &err);
    unlink(out);
    if (rc) fail_msg("%s", err.msg);
    assert_string_equal(m.match_name, "sim virtual test wheel");
    assert_int_equal(strlen(m.match_guid), 32);
    NEAR(m.steering_range_deg, 540, 0);
    const sim_axis_map *a = &m.axes[SIM_AXIS_STEER];
    assert_true(a->used && a->index == 0 && !a->invert);
    assert_int_equal(a->raw_min, -32000);
    assert_int_equal(a->raw_max, 31000);
    a = &m.axes[SIM_AXIS_THROTTLE];
    assert_true(a->used && a->index == 2 && a->invert);
    assert_int_equal(a->raw_min, -32768);
    assert_int_equal(a->raw_max, 32767);
    a = &m.axes[SIM_AXIS_BRAKE];
    assert_true(a->used && a->index == 3 && a->invert);
    assert_int_equal(a->raw_min, -30000);
    assert_false(m.axes[SIM_AXIS_CLUTCH].used);
    assert_false(m.axes[SIM_AXIS_PEDALS].used);
    const sim_button_ref *b = &m.buttons[SIM_BUTTON_INDICATOR_LEFT];
    assert_true(b->used && b->button == 4);
    b = &m.buttons[SIM_BUTTON_INDICATOR_RIGHT];
    assert_true(b->used && b->button == -1 && b->hat == 0 && b->hat_mask == SIM_HAT_LEFT);
    for (int r = SIM_BUTTON_HORN; r < SIM_BUTTON_ROLE_COUNT; r++) assert_false(m.buttons[r].used);
}

static int run_status(char *const argv[])
{
    pid_t p = ts_spawn(argv, false);
    int st = -1;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void bad_options_exit_2(void **state)
{
    char *a[] = {"input-node", "--device", "banana", NULL};
    assert_int_equal(run_status(a), 2);
    char *b[] = {"input-node", "--device", "keyboard", "--driver", "script", NULL};
    assert_int_equal(run_status(b), 2);
    char *c[] = {"input-node", "--rate-hz", "0", NULL};
    assert_int_equal(run_status(c), 2);
    char *e[] = {"input-node", "--no-such-flag", NULL};
    assert_int_equal(run_status(e), 2);
    /* Regressions: positional arguments were ignored and a negative or absurd
     * --target-kmh taken silently. */
    char *h[] = {"input-node", "stray", NULL};
    assert_int_equal(run_status(h), 2);
    char *i[] = {"input-node", "--target-kmh", "-5", NULL};
    assert_int_equal(run_status(i), 2);
    char *j[] = {"input-node", "--target-kmh", "1e300", NULL};
    assert_int_equal(run_status(j), 2);
    /* A broken --mapping file is refused at start. */
    char *g[] = {"input-node", "--mapping", "/nonexistent/map.json", "--bus", "127.0.0.1:1", NULL};
    assert_int_equal(run_status(g), 1);
    /* The script without a scenario or replay is refused before touching the bus. */
    char *f[] = {"input-node", "--driver", "script", "--bus", "127.0.0.1:1", NULL};
    assert_int_equal(run_status(f), 1);
}

/* Regression: the test-script reader split lines with strtok, which skips blank lines,
 * so an error on line 4 after a blank line was reported as line 3; a NaN time passed. */
static void test_script_errors_name_the_right_line(void **state)
{
    write_file("wheel axes 2 buttons 2 hats 0\n\n# comment\n0.1 bogus 1 2\n");
    char cmd[512], out[1024];
    snprintf(cmd, sizeof cmd, "%s --driver wheel --virtual-test-script %s --bus 127.0.0.1:1 2>&1; echo rc=$?",
             ts_bin("input-node"), g_file);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    unlink(g_file);
    if (!strstr(out, ": line 4: expected axis, button, hat, detach or attach, found 'bogus'") || !strstr(out, "rc=1"))
        fail_msg("%s", out);
    write_file("wheel axes 2 buttons 2 hats 0\nnan axis 0 5\n");
    snprintf(cmd, sizeof cmd, "%s --driver wheel --virtual-test-script %s --bus 127.0.0.1:1 2>&1; echo rc=$?",
             ts_bin("input-node"), g_file);
    p = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    unlink(g_file);
    if (!strstr(out, ": line 2: time nan: expected seconds 0..1e6") || !strstr(out, "rc=1")) fail_msg("%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(virtual_wheel_end_to_end, teardown),
        cmocka_unit_test_teardown(lockstep_replay_answers_every_tick, teardown),
        cmocka_unit_test_teardown(mapping_file_matched_by_name, teardown),
        cmocka_unit_test_teardown(game_controller_layout, teardown),
        cmocka_unit_test(shipped_mappings_load),
        cmocka_unit_test_teardown(lockstep_script_follows_ideal_lane, teardown),
        cmocka_unit_test_teardown(restart_rebuilds_the_path, teardown),
        cmocka_unit_test_teardown(ffb_fades_on_silence_pause_and_exit, teardown),
        cmocka_unit_test_teardown(calibrate_writes_mapping, teardown),
        cmocka_unit_test_teardown(drt_tactile_stimulus_vibrates_the_wheel, teardown),
        cmocka_unit_test(bad_options_exit_2),
        cmocka_unit_test(test_script_errors_name_the_right_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
