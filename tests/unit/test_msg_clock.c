/* Unit tests of sim_msg_clock: clock.ping, clock.pong, session.clock and session.host
 * encoded byte for byte, decoded back, missing fields named; the four-stamp estimate
 * and the best of N. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_clock.h"

static char *print(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static void encode_bytes(void **state)
{
    (void)state;
    sim_msg_clock_ping ping = {.host = "sim", .id = 7, .t1 = 1764700000.125, .m1 = 12.5};
    char *s = print(sim_msg_clock_ping_encode(&ping));
    assert_string_equal(s, "{\"host\":\"sim\",\"id\":7,\"t1\":1764700000.125,\"m1\":12.5}");
    free(s);
    sim_msg_clock_pong pong = {.host = "aux", .id = 8, .t1 = 1.5, .m1 = 2, .t2 = 3.25, .m2 = 4, .t3 = 3.5, .m3 = 4.25,
                               .sync = "chrony", .synced = true};
    s = print(sim_msg_clock_pong_encode(&pong));
    assert_string_equal(s, "{\"host\":\"aux\",\"id\":8,\"t1\":1.5,\"m1\":2,\"t2\":3.25,\"m2\":4,\"t3\":3.5,\"m3\":4.25,"
                           "\"sync\":\"chrony\",\"synced\":true}");
    free(s);
    sim_msg_session_clock c = {.host = "sim", .offset_ms = -0.25, .mono_offset_ms = 5250.5, .rtt_ms = 0.125,
                               .samples = 10, .answered = 9, .sync = "none"};
    s = print(sim_msg_session_clock_encode(&c));
    assert_string_equal(s, "{\"host\":\"sim\",\"offset_ms\":-0.25,\"mono_offset_ms\":5250.5,\"rtt_ms\":0.125,"
                           "\"samples\":10,\"answered\":9,\"sync\":\"none\",\"synced\":false}");
    free(s);
    sim_msg_session_host h = {.host = "aux", .state = "lost", .reason = "no answer", .silent_ms = 750};
    s = print(sim_msg_session_host_encode(&h));
    assert_string_equal(s, "{\"host\":\"aux\",\"state\":\"lost\",\"reason\":\"no answer\",\"silent_ms\":750}");
    free(s);
}

static void round_trip(void **state)
{
    (void)state;
    /* microseconds of a Unix time survive the trip */
    sim_msg_clock_pong pong = {.host = "render-a", .id = 123456789012ULL, .t1 = 1764700000.123456, .m1 = 1e5 + 1e-6,
                               .t2 = 1764700000.123789, .m2 = 3, .t3 = 1764700000.12379, .m3 = 3.000001,
                               .sync = "ptp4l", .synced = true};
    cJSON *o = sim_msg_clock_pong_encode(&pong);
    sim_msg_clock_pong back;
    sim_error err = {0};
    assert_int_equal(sim_msg_clock_pong_decode(o, &back, &err), 0);
    assert_string_equal(back.host, pong.host);
    assert_true(back.id == pong.id && back.t1 == pong.t1 && back.m1 == pong.m1 && back.t2 == pong.t2 &&
                back.m2 == pong.m2 && back.t3 == pong.t3 && back.m3 == pong.m3 && back.synced);
    assert_string_equal(back.sync, "ptp4l");
    cJSON_Delete(o);
    sim_msg_session_clock c = {.host = "sim", .offset_ms = 1, .mono_offset_ms = 2, .rtt_ms = 3, .samples = 10,
                               .answered = 10, .sync = "timesyncd"}, cb;
    o = sim_msg_session_clock_encode(&c);
    assert_int_equal(sim_msg_session_clock_decode(o, &cb, &err), 0);
    assert_string_equal(cb.host, "sim");
    assert_true(cb.offset_ms == 1 && cb.mono_offset_ms == 2 && cb.rtt_ms == 3 && cb.samples == 10 &&
                cb.answered == 10 && !cb.synced);
    assert_string_equal(cb.sync, "timesyncd");
    cJSON_Delete(o);
    sim_msg_session_host h = {.host = "aux", .state = "back", .reason = "answers again", .silent_ms = 0}, hb;
    o = sim_msg_session_host_encode(&h);
    assert_int_equal(sim_msg_session_host_decode(o, &hb, &err), 0);
    assert_string_equal(hb.host, "aux");
    assert_string_equal(hb.state, "back");
    assert_string_equal(hb.reason, "answers again");
    assert_true(hb.silent_ms == 0);
    cJSON_Delete(o);
}

static void bad_fields_named(void **state)
{
    (void)state;
    static const struct { const char *json, *needle; int which; } cases[] = {
        {"{\"id\":1,\"t1\":1,\"m1\":1}", " host: ", 0},
        {"{\"host\":\"a\",\"t1\":1,\"m1\":1}", " id: ", 0},
        {"{\"host\":\"a\",\"id\":1,\"m1\":1}", " t1: ", 0},
        {"{\"host\":\"a\",\"id\":1,\"t1\":\"x\",\"m1\":1}", " t1: ", 0},
        {"{\"host\":\"a\",\"id\":1,\"t1\":1,\"m1\":1,\"t2\":1,\"m2\":1,\"t3\":1}", " m3: ", 1},
        {"{\"host\":\"a\",\"id\":1,\"t1\":1,\"m1\":1,\"t2\":1,\"m2\":1,\"t3\":1,\"m3\":1,\"synced\":true}", " sync: ", 1},
        {"{\"host\":\"a\",\"offset_ms\":0,\"mono_offset_ms\":0,\"rtt_ms\":-1,\"samples\":1,\"answered\":1}", " rtt_ms: ", 2},
        {"{\"host\":\"a\",\"state\":\"gone\",\"reason\":\"x\",\"silent_ms\":1}", " state: ", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *msg = cJSON_Parse(cases[i].json);
        sim_error err = {0};
        int rc;
        const char *topic;
        union { sim_msg_clock_ping a; sim_msg_clock_pong b; sim_msg_session_clock c; sim_msg_session_host d; } u;
        switch (cases[i].which) {
        case 0: rc = sim_msg_clock_ping_decode(msg, &u.a, &err); topic = "clock.ping: "; break;
        case 1: rc = sim_msg_clock_pong_decode(msg, &u.b, &err); topic = "clock.pong: "; break;
        case 2: rc = sim_msg_session_clock_decode(msg, &u.c, &err); topic = "session.clock: "; break;
        default: rc = sim_msg_session_host_decode(msg, &u.d, &err); topic = "session.host: "; break;
        }
        if (rc >= 0 || !strstr(err.msg, topic) || !strstr(err.msg, cases[i].needle))
            print_message("case %zu: rc %d: %s\n", i, rc, err.msg);
        assert_true(rc < 0);
        assert_non_null(strstr(err.msg, topic));
        assert_non_null(strstr(err.msg, cases[i].needle));
        cJSON_Delete(msg);
    }
}

static void four_stamps(void **state)
{
    (void)state;
    /* the host 5 ms ahead, 1 ms each way, 0.5 ms to answer: ping sent at 100.000,
     * received at 100.001 + 0.005, answered 0.0005 later, back at 100.0025 */
    sim_msg_clock_pong p = {.host = "h", .t1 = 100.0, .m1 = 10.0, .t2 = 100.006, .m2 = 20.001,
                            .t3 = 100.0065, .m3 = 20.0015};
    sim_clock_sample s = sim_clock_estimate(&p, 100.0025, 10.0025);
    assert_true(fabs(s.offset - 0.005) < 1e-9);
    assert_true(fabs(s.rtt - 0.002) < 1e-9);
    assert_true(fabs(s.mono_offset - 10.0) < 1e-9);
    /* asymmetric: 0.2 ms out, 1.8 ms back: the error is half the difference (0.8 ms), within rtt / 2 */
    sim_msg_clock_pong q = {.host = "h", .t1 = 0, .m1 = 0, .t2 = 0.0052, .m2 = 0.0002, .t3 = 0.0052, .m3 = 0.0002};
    s = sim_clock_estimate(&q, 0.002, 0.002);
    assert_true(fabs(s.offset - 0.0042) < 1e-9);
    assert_true(fabs(s.offset - 0.005) <= s.rtt / 2 + 1e-12);
    sim_clock_sample v[] = {{.rtt = 0.004}, {.rtt = 0.0011}, {.rtt = 0.003}, {.rtt = 0.0011}};
    assert_int_equal(sim_clock_best(v, 4), 1);
    assert_int_equal(sim_clock_best(v, 0), -1);
}

static void sync_daemons(void **state)
{
    (void)state;
    assert_string_equal(sim_clock_sync_daemon("chronyd"), "chrony");
    assert_string_equal(sim_clock_sync_daemon("systemd-timesyn"), "timesyncd"); /* comm: 15 bytes */
    assert_string_equal(sim_clock_sync_daemon("ptp4l"), "ptp4l");
    assert_string_equal(sim_clock_sync_daemon("phc2sys"), "phc2sys");
    assert_string_equal(sim_clock_sync_daemon("ntpd"), "ntpd");
    assert_null(sim_clock_sync_daemon("chrony"));
    assert_null(sim_clock_sync_daemon("bash"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_bytes),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(bad_fields_named),
        cmocka_unit_test(four_stamps),
        cmocka_unit_test(sync_daemons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
