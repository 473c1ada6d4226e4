/* Unit test of the physics node's static-object collisions (physics-node/collide.c)
 * without starting the node: a scenario with a straight road, style none and a named
 * tree beside it; a car steered off the road into the tree stops there and one
 * vehicle.collision names the tree (kind, id, speed), however long it leans on it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collide.h"
#include "sim_vehicle_file.h"
#include "world.h"

static void steered_into_a_tree(void **state)
{
    (void)state;
    char path[] = "/tmp/physics-collide-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    const char *json =
        "{\"name\":\"trees\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
        "\"segments\":[{\"type\":\"line\",\"length\":300}],\"lanes\":{\"right\":[{\"width\":3.5}]}}],"
        "\"start_points\":[{\"name\":\"s\",\"road\":\"a\",\"s\":10,\"lane\":-1,\"speed_kmh\":80}],"
        "\"scenery\":{\"style\":\"none\",\"objects\":[{\"kind\":\"tree\",\"id\":\"oak\",\"x\":80,\"y\":-12,"
        "\"length_m\":5,\"width_m\":5,\"height_m\":10},{\"kind\":\"bush\",\"x\":60,\"y\":-6}]}}";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    pn_world *w;
    sim_error err = {0};
    int rc = pn_world_open(path, NULL, &w, &err);
    unlink(path);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(pn_world_objects(w)->n, 2);
    assert_int_equal(pn_world_obstacles(w)->n, 1); /* the bush has no body */

    char vpath[512];
    const char *root = getenv("SIM_ROOT");
    snprintf(vpath, sizeof vpath, "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_vehicle_params p;
    assert_int_equal(sim_vehicle_params_load(vpath, &p, &err), 0);
    sim_vehicle_start st;
    assert_int_equal(pn_world_start(w, "s", &st, &err), 0);
    /* aimed at the tree: from (10, -1.75) to (80, -12) */
    st.heading = atan2(-12 + 1.75, 80 - st.x);
    st.gear = sim_vehicle_start_gear(&p, st.speed);
    sim_vehicle *car = malloc(sizeof *car);
    assert_non_null(car);
    assert_int_equal(sim_vehicle_init(car, &p, SIM_VEHICLE_FULL, SIM_INTEGRATOR_MIDPOINT, pn_world_ground(w), &st,
                                      &err), 0);
    pn_collide c;
    pn_collide_reset(&c, 1e-3);
    sim_vehicle_controls in = {.automatic = true, .gear = st.gear};
    int events = 0, first_step = -1;
    sim_msg_vehicle_collision ev = {0};
    for (int k = 0; k < 6000; k++) {
        assert_int_equal(sim_vehicle_step(car, &in, pn_world_ground(w), NULL, 0, 1e-3), 0);
        pn_collide_step(&c, car, w);
        if (c.n_pending) {
            if (!events) {
                ev = c.pending[0];
                first_step = k;
                in.brake = 1.0;
            }
            events += c.n_pending;
            c.n_pending = 0;
        }
    }
    double dist = hypot(car->y[0] - 80, car->y[1] + 12);
    printf("tree hit at %.2f s: kind %s id %s at %.1f m/s (car %.1f m/s), %d event(s); car at rest %.2f m from the tree\n",
           first_step * 1e-3, ev.kind, ev.id, ev.speed, ev.ego_speed, events, dist);
    assert_int_equal(events, 1);
    assert_string_equal(ev.kind, "tree");
    assert_string_equal(ev.id, "oak");
    assert_true(ev.speed > 15 && ev.speed <= ev.ego_speed + 0.1);
    assert_true(hypot(ev.x - 80, ev.y + 12) < 0.3); /* on the trunk's surface */
    assert_true(hypot(car->y[7], car->y[8]) < 0.1);
    assert_true(dist < 12);
    /* the event's message encodes and decodes as one definition */
    cJSON *m = sim_msg_vehicle_collision_encode(&ev);
    sim_msg_vehicle_collision back;
    assert_int_equal(sim_msg_vehicle_collision_decode(m, &back, &err), 0);
    assert_string_equal(back.id, "oak");
    assert_true(fabs(back.speed - ev.speed) < 1e-9);
    cJSON_DeleteItemFromObject(m, "id");
    assert_int_equal(sim_msg_vehicle_collision_decode(m, &back, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "id"));
    cJSON_Delete(m);
    free(car);
    pn_world_free(w);
}

/* Scraping along a guard rail of 4 m segments (explicit objects along the road's
 * edge), 10 degrees into it at 80 km/h: one vehicle.collision (kind guard_rail), not
 * one per segment; the car goes on along the rail. */
static void scraping_a_rail_is_one_collision(void **state)
{
    (void)state;
    static char json[16384];
    int len = snprintf(json, sizeof json,
                       "{\"name\":\"rail\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
                       "\"segments\":[{\"type\":\"line\",\"length\":400}],\"lanes\":{\"right\":[{\"width\":3.5}]}}],"
                       "\"start_points\":[{\"name\":\"s\",\"road\":\"a\",\"s\":10,\"lane\":-1,\"speed_kmh\":80}],"
                       "\"scenery\":{\"style\":\"none\",\"objects\":[");
    for (int i = 0; i < 80; i++)
        len += snprintf(json + len, sizeof json - (size_t)len,
                        "%s{\"kind\":\"guard_rail\",\"x\":%d,\"y\":-4,\"length_m\":4,\"width_m\":0.3,"
                        "\"height_m\":0.75}",
                        i ? "," : "", 20 + 4 * i);
    snprintf(json + len, sizeof json - (size_t)len, "]}}");
    char path[] = "/tmp/physics-rail-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    pn_world *w;
    sim_error err = {0};
    int rc = pn_world_open(path, NULL, &w, &err);
    unlink(path);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(pn_world_obstacles(w)->n, 80);
    char vpath[512];
    const char *root = getenv("SIM_ROOT");
    snprintf(vpath, sizeof vpath, "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_vehicle_params p;
    assert_int_equal(sim_vehicle_params_load(vpath, &p, &err), 0);
    sim_vehicle_start st;
    assert_int_equal(pn_world_start(w, "s", &st, &err), 0);
    st.heading = -10 * M_PI / 180;
    st.gear = sim_vehicle_start_gear(&p, st.speed);
    sim_vehicle *car = malloc(sizeof *car);
    assert_non_null(car);
    assert_int_equal(sim_vehicle_init(car, &p, SIM_VEHICLE_FULL, SIM_INTEGRATOR_MIDPOINT, pn_world_ground(w), &st,
                                      &err), 0);
    pn_collide c;
    pn_collide_reset(&c, 1e-3);
    sim_vehicle_controls in = {.automatic = true, .gear = st.gear};
    int events = 0, touched = 0;
    char first_kind[32] = "";
    for (int k = 0; k < 8000; k++) {
        assert_int_equal(sim_vehicle_step(car, &in, pn_world_ground(w), NULL, 0, 1e-3), 0);
        pn_collide_step(&c, car, w);
        touched = c.n_touching > touched ? c.n_touching : touched;
        if (c.n_pending && !events)
            snprintf(first_kind, sizeof first_kind, "%s", c.pending[0].kind);
        events += c.n_pending;
        c.n_pending = 0;
    }
    printf("along a rail: %d event(s) (%s), %d segments in contact at most, the car at x %.1f y %.2f\n", events,
           first_kind, touched, car->y[0], car->y[1]);
    assert_int_equal(events, 1);
    assert_string_equal(first_kind, "guard_rail");
    assert_true(touched >= 3);
    assert_true(car->y[0] > 100 && car->y[1] > -4);
    free(car);
    pn_world_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steered_into_a_tree),
        cmocka_unit_test(scraping_a_rail_is_one_collision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
