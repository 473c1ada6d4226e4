/* Unit test of the tiers simctl codes export makes of a run's events
 * (simctl_codes_from_events, docs/codes.md "Tiers"), on a video starting at log time
 * t0 = 2 s and ending at 60 s: every tier's intervals in media ms, worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cmd_codes.h"

/* simctl's main.c is not linked into module unit tests; its folder lookup is. */
const char *simctl_bin_dir(void);
const char *simctl_bin_dir(void)
{
    return "bin";
}

#define EV(t, kind, name, json) {0, t, kind, name, json}

static const sim_code *find(const sim_codes *c, const char *tier, size_t nth)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i].tier, tier) && nth-- == 0) return &c->items[i];
    return NULL;
}

static size_t count(const sim_codes *c, const char *tier)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) k += !strcmp(c->items[i].tier, tier);
    return k;
}

static void expect(const sim_codes *c, const char *tier, size_t nth, const char *value, int64_t s, int64_t e)
{
    const sim_code *k = find(c, tier, nth);
    if (!k) fail_msg("no %s #%zu", tier, nth);
    assert_string_equal(k->value, value);
    assert_int_equal(k->start_ms, s);
    assert_int_equal(k->end_ms, e);
    assert_string_equal(k->annotator, "sim");
}

static void tiers(void **state)
{
    (void)state;
    sim_drivelog_event ev[] = {
        EV(1.0, "mark", "before_video", NULL),                       /* an instant before t0: left out */
        EV(1.5, "task", "start", "{\"id\":\"T1\"}"),                 /* begun before t0: from 0 */
        EV(4.0, "drt", "stimulus", "{\"id\":1,\"modality\":\"visual\",\"on\":true}"),
        EV(5.0, "drt", "stimulus", "{\"id\":1,\"on\":false}"),
        EV(5.25, "drt", "response", "{\"source\":\"button\"}"),
        EV(10.0, "automation", "engaged", "{\"event\":\"engaged\",\"mode\":\"l2\"}"),
        EV(15.0, "automation", "engaged", "{\"event\":\"engaged\",\"mode\":\"l3\"}"),
        EV(20.0, "automation", "tor", "{\"event\":\"tor\",\"mode\":\"l3\",\"reason\":\"zone\"}"),
        EV(24.125, "automation", "handover", "{\"event\":\"handover\",\"mode\":\"manual\"}"),
        EV(30.0, "task", "end", "{\"id\":\"T1\"}"),
        EV(31.0, "collision", "car7", "{\"rel_speed\":3}"),
        EV(40.0, "run", "paused", "{}"),
        EV(45.5, "run", "resumed", "{}"),
        EV(50.0, "sector", "start", "{\"id\":\"S2\"}"),              /* never ends: to 60 s */
        EV(55.0, "button", "horn", NULL),                            /* not a tier */
    };
    sim_codes c = {0};
    sim_error err = {0};
    assert_int_equal(simctl_codes_from_events(ev, sizeof ev / sizeof ev[0], 2.0, 60.0, &c, &err), 0);
    assert_int_equal(count(&c, "mark"), 0);
    expect(&c, "task", 0, "T1", 0, 28000);
    expect(&c, "drt", 0, "visual", 2000, 3000);
    expect(&c, "drt_response", 0, "response", 3250, 3250);
    expect(&c, "automation", 0, "l2", 8000, 13000);
    expect(&c, "automation", 1, "l3", 13000, 22125);
    expect(&c, "tor", 0, "tor", 18000, 22125);
    expect(&c, "automation_event", 0, "engaged", 8000, 8000);
    expect(&c, "automation_event", 2, "tor", 18000, 18000);
    expect(&c, "automation_event", 3, "handover", 22125, 22125);
    expect(&c, "collision", 0, "car7", 29000, 29000);
    expect(&c, "pause", 0, "paused", 38000, 43500);
    expect(&c, "sector", 0, "S2", 48000, 58000);
    assert_int_equal(count(&c, "automation"), 2);
    assert_int_equal(count(&c, "automation_event"), 4);
    /* 1 task, 1 drt, 1 response, 2 modes, 1 tor, 4 automation events, 1 collision, 1 pause, 1 sector */
    assert_int_equal(c.n, 13);
    sim_codes_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(tiers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
