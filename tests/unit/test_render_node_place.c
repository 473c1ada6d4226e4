/* Unit test of render-node's idea of where the car is (session.c): the HUD's speed
 * limit and the scenario's hud_text triggers go by the road, s and lane physics put in
 * vehicle.state, so that at a junction or a bridge render-node never picks another
 * road than physics and the drive log. Before, render-node located the car again from
 * x, y alone and could land on the crossing road. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "sim_node.h"

double rn_now(void) { return 100.0; } /* main.c's clock, left out of this test */

/* Two roads crossing at right angles: "a" along +x on y = 0 (50 km/h, a hud_text
 * trigger over s 40..60), "b" along +y on x = 50 (80 km/h). (50.5, -1.5) lies in the
 * right lane of both; by |t| alone, which is all a locate from x, y has, "b" wins. */
static const char CROSSING[] =
    "{\"format\":1,\"name\":\"crossing\","
    "\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
    "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3.5}]},"
    "\"speed_limits\":[{\"speed_kmh\":50}]},"
    "{\"id\":\"b\",\"start\":{\"x\":50,\"y\":-50,\"heading_deg\":90},"
    "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3.5}]},"
    "\"speed_limits\":[{\"speed_kmh\":80}]}],"
    "\"start_points\":[{\"name\":\"start\",\"road\":\"a\",\"s\":10,\"lane\":-1}],"
    "\"triggers\":[{\"id\":\"sign\",\"road\":\"a\",\"s_start\":40,\"s_end\":60,"
    "\"action\":{\"type\":\"hud_text\",\"text\":\"on a\",\"duration_s\":3}}]}";

static rn_node node;

static void state(const char *line)
{
    cJSON *msg = cJSON_Parse(line);
    assert_non_null(msg);
    sim_envelope env;
    sim_envelope_read(msg, line, strlen(line), &env);
    rn_session_vehicle_state(&node, msg, env.t, false);
    cJSON_Delete(msg);
}

static void hud_follows_physics_road(void **st)
{
    (void)st;
    sim_diag diag = {0};
    int rc = sim_scenario_parse(CROSSING, strlen(CROSSING), "crossing", NULL, &node.sc, &diag);
    for (int i = 0; i < diag.n; i++) print_message("%s\n", diag.msgs[i]);
    sim_diag_free(&diag);
    assert_int_equal(rc, 0);
    node.trigger_fired = calloc((size_t)node.sc->n_triggers + 1, sizeof *node.trigger_fired);
    node.connected = true;
    node.last_state_wall = -1;

    /* physics: on road a, s 50.5, lane -1 */
    state("{\"topic\":\"vehicle.state\",\"t\":1,\"pos\":[50.5,-1.5,0],\"heading\":0,\"speed\":10,"
          "\"road\":\"a\",\"s\":50.5,\"d\":-1.5,\"lane\":-1,\"tick\":100,\"run\":0}");
    rn_session_update_hud(&node, rn_now());
    assert_true(fabs(node.scene.hud.limit_kmh - 50) < 1e-9);
    assert_true(node.trigger_fired[0]);

    /* physics: the same point heading +y is on road b */
    state("{\"topic\":\"vehicle.state\",\"t\":1.01,\"pos\":[50.5,-1.5,0],\"heading\":1.57,\"speed\":10,"
          "\"road\":\"b\",\"s\":48.5,\"d\":-0.5,\"lane\":-1,\"tick\":101,\"run\":0}");
    rn_session_update_hud(&node, rn_now());
    assert_true(fabs(node.scene.hud.limit_kmh - 80) < 1e-9);

    /* off the lanes (physics gives no lane): no limit */
    state("{\"topic\":\"vehicle.state\",\"t\":1.02,\"pos\":[50.5,-30,0],\"heading\":0,\"speed\":10,"
          "\"road\":\"a\",\"s\":50.5,\"d\":-30,\"lane\":null,\"tick\":102,\"run\":0}");
    rn_session_update_hud(&node, rn_now());
    assert_true(node.scene.hud.limit_kmh == 0);
    free(node.trigger_fired);
    sim_scenario_free(node.sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hud_follows_physics_road),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
