/* Unit tests of common/traci: the bytes of each command against TraCI's specification
 * (https://sumo.dlr.de/docs/TraCI/Protocol.html, big-endian, 1-byte lengths widened to
 * 0 + 4 bytes past 255), and the reader on answers written out by hand: statuses, a
 * refusal with SUMO's words, getVersion, the leader, a step with a vehicle context
 * subscription, and every truncation of it refused without reading past the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim_traci.h"

static void expect_bytes(const sim_traci_buf *b, const unsigned char *want, size_t n)
{
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, want, n);
}

static void commands_are_the_specified_bytes(void **state)
{
    sim_traci_buf b = {0};
    sim_error err = {0};
    sim_traci_msg_begin(&b);
    sim_traci_cmd_get_version(&b);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char version[] = {0, 0, 0, 6, 0x02, 0x00};
    expect_bytes(&b, version, sizeof version);

    sim_traci_msg_begin(&b);
    sim_traci_cmd_step(&b, 1.5);
    sim_traci_cmd_set_scale(&b, 0.5);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char step[] = {0, 0, 0, 30,
                                         /* simstep: length 10, 0x02, double 1.5 */
                                         10, 0x02, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
                                         /* set sim variable scale: length 16, 0xcb, 0x8e, "", double 0.5 */
                                         16, 0xcb, 0x8e, 0, 0, 0, 0, 0x0b, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0};
    expect_bytes(&b, step, sizeof step);

    sim_traci_msg_begin(&b);
    sim_traci_cmd_move_to_xy(&b, "ego", "", 0, 1.0, -2.0, 90.0, 0);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char move[] = {
        0, 0, 0, 67, 63, 0xc4, 0xb4, 0, 0, 0, 3, 'e', 'g', 'o', 0x0f, 0, 0, 0, 7, /* compound of 7 */
        0x0c, 0, 0, 0, 0,                                                          /* edge "" */
        0x09, 0, 0, 0, 0,                                                          /* lane 0 */
        0x0b, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,                                        /* x 1.0 */
        0x0b, 0xc0, 0x00, 0, 0, 0, 0, 0, 0,                                        /* y -2.0 */
        0x0b, 0x40, 0x56, 0x80, 0, 0, 0, 0, 0,                                     /* angle 90.0 */
        0x08, 0,                                                                   /* keepRoute 0 */
        0x0b, 0x40, 0x59, 0, 0, 0, 0, 0, 0};                                       /* threshold 100 */
    expect_bytes(&b, move, sizeof move);

    static const uint8_t vars[] = {0x39, 0x43};
    sim_traci_msg_begin(&b);
    sim_traci_cmd_subscribe_vehicle_context(&b, "ego", 0, 1, 50, vars, 2);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char sub[] = {0, 0, 0, 41, 37, 0x84, 0, 0, 0, 0, 0, 0, 0, 0, /* begin 0 */
                                        0x3f, 0xf0, 0, 0, 0, 0, 0, 0,                  /* end 1 */
                                        0, 0, 0, 3, 'e', 'g', 'o', 0xa4,               /* vehicles */
                                        0x40, 0x49, 0, 0, 0, 0, 0, 0,                  /* range 50 */
                                        2, 0x39, 0x43};
    expect_bytes(&b, sub, sizeof sub);

    /* past 255 bytes the length is 0 and 4 bytes, counting themselves */
    const char *edges[40];
    for (int i = 0; i < 40; i++) edges[i] = "edge";
    sim_traci_msg_begin(&b);
    sim_traci_cmd_add_route(&b, "r", edges, 40);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    size_t content = 1 + 4 + 1 + 1 + 4 + 40 * 8; /* var, id "r", type, count, edges */
    assert_int_equal(b.len, 4 + 6 + content);
    static const unsigned char head[] = {0, 0, 0x01, 0x55, 0, 0, 0, 0x01, 0x51, 0xc6, 0x80};
    assert_memory_equal(b.data, head, sizeof head);
    assert_int_equal(b.len, 0x155);
    sim_traci_buf_free(&b);
}

/* An answer: length, then the parts. */
static size_t answer(unsigned char *out, const unsigned char *body, size_t n)
{
    size_t len = n + 4;
    out[0] = (unsigned char)(len >> 24), out[1] = (unsigned char)(len >> 16), out[2] = (unsigned char)(len >> 8),
    out[3] = (unsigned char)len;
    memcpy(out + 4, body, n);
    return len;
}

static void statuses_and_version(void **state)
{
    static const unsigned char body[] = {
        7, 0x00, 0x00, 0, 0, 0, 0,                                                        /* status ok */
        21, 0x00, 0, 0, 0, 20, 0, 0, 0, 11, 'S', 'U', 'M', 'O', ' ', '1', '.', '1', '5', '.', '0', /* version */
        11, 0xc4, 0xff, 0, 0, 0, 4, 'g', 'o', 'n', 'e'};                                   /* refused */
    unsigned char msg[128];
    size_t n = answer(msg, body, sizeof body);
    sim_traci_reader r;
    sim_error err = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GETVERSION, &err), 0);
    int32_t api;
    char id[64];
    assert_int_equal(sim_traci_read_version(&r, &api, id, sizeof id, &err), 0);
    assert_int_equal(api, 20);
    assert_string_equal(id, "SUMO 1.15.0");
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "SUMO refused command 0xc4: gone");
    assert_int_equal(r.pos, n);
    /* a status of another command is an error, not skipped */
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "a status for command 0x00 where 0x02 was expected"));
    /* the length field must match */
    msg[3]++;
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), SIM_EINVAL);
}

static const unsigned char step_body[] = {
    7, 0x02, 0x00, 0, 0, 0, 0, /* status of the step */
    0, 0, 0, 1,                /* one subscription result */
    0, 0, 0, 0, 63,            /* extended length: 0, then 63 bytes (these 5 included) */
    0x94, 0, 0, 0, 3, 'e', 'g', 'o', 0xa4, 2, 0, 0, 0, 1, /* ego, vehicles, 2 vars, 1 object */
    0, 0, 0, 2, 'v', '7',
    0x39, 0x00, 0x03, 0x40, 0x24, 0, 0, 0, 0, 0, 0, 0x40, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* (10, 20, 0) */
    0x43, 0x00, 0x0b, 0x40, 0x56, 0x80, 0, 0, 0, 0, 0};                                                 /* 90 deg */

static int seen;
static int on_object(const sim_traci_object *o, void *user)
{
    assert_int_equal(o->id_len, 2);
    assert_memory_equal(o->id, "v7", 2);
    assert_int_equal(o->n_vars, 2);
    assert_true(o->ok[0] && o->ok[1]);
    assert_int_equal(o->value[0].type, SIM_TRACI_TYPE_POSITION_3D);
    assert_true(o->value[0].pos[0] == 10 && o->value[0].pos[1] == 20 && o->value[0].pos[2] == 0);
    assert_true(o->value[1].d == 90);
    seen++;
    return 0;
}

static void step_with_a_context_subscription(void **state)
{
    unsigned char msg[256];
    size_t n = answer(msg, step_body, sizeof step_body);
    sim_traci_reader r;
    sim_error err = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err), 0);
    seen = 0;
    assert_int_equal(sim_traci_read_step(&r, on_object, NULL, &err), 0);
    assert_int_equal(seen, 1);
    assert_int_equal(r.pos, n);
    /* every shorter answer (its length field set to match) is refused, never overread:
     * ASan watches the copies, each exactly as long as it says */
    for (size_t cut = 4; cut < n; cut++) {
        unsigned char *m = malloc(cut);
        memcpy(m, msg, cut);
        m[0] = (unsigned char)(cut >> 24), m[1] = (unsigned char)(cut >> 16), m[2] = (unsigned char)(cut >> 8),
        m[3] = (unsigned char)cut;
        int rc = sim_traci_reader_init(&r, m, cut, &err);
        if (!rc) rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err);
        if (!rc) rc = sim_traci_read_step(&r, NULL, NULL, &err);
        assert_int_equal(rc, SIM_EINVAL);
        free(m);
    }
}

static void the_leader(void **state)
{
    static const unsigned char body[] = {
        7, 0xa4, 0x00, 0, 0, 0, 0, 40, 0xb4, 0x68, 0, 0, 0, 3, 'e', 'g', 'o', 0x0f, 0, 0, 0, 2, 0x0c, 0, 0, 0, 3,
        'c', 'a', 'r', 0x0b, 0x40, 0x2e, 0, 0, 0, 0, 0, 0, /* ("car", 15.0) */
        0, 0, 0, 0, 0, 0, 0, 0};                           /* (40 counts 8 bytes more: skipped) */
    unsigned char msg[128];
    size_t n = answer(msg, body, sizeof body);
    sim_traci_reader r;
    sim_error err = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, &err), 0);
    char id[64];
    double dist;
    assert_int_equal(sim_traci_read_leader(&r, id, sizeof id, &dist, &err), 0);
    assert_string_equal(id, "car");
    assert_true(dist == 15.0);
    assert_int_equal(r.pos, n);
}

/* Every shorter copy of msg (its length field set to match) is refused by read, never
 * overread: ASan watches the copies, each exactly as long as it says. */
static void truncations_refused(const unsigned char *msg, size_t n, int (*read)(sim_traci_reader *r, sim_error *err))
{
    for (size_t cut = 4; cut < n; cut++) {
        unsigned char *m = malloc(cut);
        memcpy(m, msg, cut);
        m[0] = (unsigned char)(cut >> 24), m[1] = (unsigned char)(cut >> 16), m[2] = (unsigned char)(cut >> 8),
        m[3] = (unsigned char)cut;
        sim_traci_reader r;
        sim_error err = {0};
        int rc = sim_traci_reader_init(&r, m, cut, &err);
        if (!rc) rc = read(&r, &err);
        assert_true(rc < 0);
        free(m);
    }
}

static void light_and_person_commands_are_the_specified_bytes(void **state)
{
    sim_traci_buf b = {0};
    sim_error err = {0};
    sim_traci_msg_begin(&b);
    sim_traci_cmd_get(&b, SIM_TRACI_CMD_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, "");
    sim_traci_cmd_get(&b, SIM_TRACI_CMD_GET_TL_VARIABLE, SIM_TRACI_TL_CONTROLLED_LINKS, "106");
    sim_traci_cmd_get(&b, SIM_TRACI_CMD_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, "90_0");
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char gets[] = {0, 0, 0, 32,
                                         7, 0xa2, 0x00, 0, 0, 0, 0,                 /* trafficlight.getIDList() */
                                         10, 0xa2, 0x27, 0, 0, 0, 3, '1', '0', '6', /* getControlledLinks("106") */
                                         11, 0xa3, 0x4e, 0, 0, 0, 4, '9', '0', '_', '0'}; /* lane.getShape */
    expect_bytes(&b, gets, sizeof gets);

    /* trafficlight.subscribe("106", [state]) from 0 to 1e9 s */
    static const uint8_t ryg[] = {SIM_TRACI_TL_RED_YELLOW_GREEN_STATE};
    sim_traci_msg_begin(&b);
    sim_traci_cmd_subscribe_variables(&b, SIM_TRACI_CMD_SUBSCRIBE_TL_VARIABLE, "106", 0, 1e9, ryg, 1);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char sub[] = {0, 0, 0, 31, 27, 0xd2,
                                        0, 0, 0, 0, 0, 0, 0, 0,                   /* begin 0.0 */
                                        0x41, 0xcd, 0xcd, 0x65, 0, 0, 0, 0,       /* end 1e9 */
                                        0, 0, 0, 3, '1', '0', '6', 1, 0x20};
    expect_bytes(&b, sub, sizeof sub);

    /* vehicle.subscribeContext("ego", person domain, 50 m, [position 3D, angle]) */
    static const uint8_t pv[] = {SIM_TRACI_VAR_POSITION3D, SIM_TRACI_VAR_ANGLE};
    sim_traci_msg_begin(&b);
    sim_traci_cmd_subscribe_context(&b, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, "ego", SIM_TRACI_CMD_GET_PERSON_VARIABLE,
                                    0, 1e9, 50, pv, 2);
    assert_int_equal(sim_traci_msg_end(&b, &err), 0);
    static const unsigned char ctx[] = {0, 0, 0, 41, 37, 0x84,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0x41, 0xcd, 0xcd, 0x65, 0, 0, 0, 0,
                                        0, 0, 0, 3, 'e', 'g', 'o',
                                        0xae,                                     /* persons */
                                        0x40, 0x49, 0, 0, 0, 0, 0, 0,             /* 50.0 m */
                                        2, 0x39, 0x43};
    expect_bytes(&b, ctx, sizeof ctx);
    sim_traci_buf_free(&b);
}

/* getControlledLinks of light "106" of Town03 with --tls.guess as the real sumo 1.15
 * sends it (captured with SUMO's Python client), cut to its first two signals. */
static const unsigned char links_body[] = {
    7, 0xa2, 0x00, 0, 0, 0, 0,                            /* status */
    0, 0, 0, 0, 84, 0xb2, 0x27, 0, 0, 0, 3, '1', '0', '6', /* extended length 84 */
    0x0f, 0, 0, 0, 5,                                     /* compound of 5 items */
    0x09, 0, 0, 0, 2,                                     /* 2 signals */
    0x09, 0, 0, 0, 1,                                     /* signal 0: 1 link */
    0x0e, 0, 0, 0, 3, 0, 0, 0, 4, '9', '0', '_', '0', 0, 0, 0, 4, '3', '3', '_', '0', 0, 0, 0, 0,
    0x09, 0, 0, 0, 1,                                     /* signal 1: 1 link, no internal lane */
    0x0e, 0, 0, 0, 3, 0, 0, 0, 4, '9', '0', '_', '0', 0, 0, 0, 4, '2', '5', '_', '0', 0, 0, 0, 0};

static int n_links;
static int on_link(const sim_traci_link *l, void *user)
{
    (void)user;
    assert_int_equal(l->signal, n_links);
    assert_int_equal(l->from.len, 4);
    assert_memory_equal(l->from.s, "90_0", 4);
    assert_memory_equal(l->to.s, n_links ? "25_0" : "33_0", 4);
    assert_int_equal(l->via.len, 0);
    n_links++;
    return 0;
}

static int read_links(sim_traci_reader *r, sim_error *err)
{
    int rc = sim_traci_read_status(r, SIM_TRACI_CMD_GET_TL_VARIABLE, err);
    return rc ? rc : sim_traci_read_tl_links(r, NULL, NULL, err);
}

static void controlled_links(void **state)
{
    unsigned char msg[256];
    size_t n = answer(msg, links_body, sizeof links_body);
    sim_traci_reader r;
    sim_error err = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GET_TL_VARIABLE, &err), 0);
    n_links = 0;
    assert_int_equal(sim_traci_read_tl_links(&r, on_link, NULL, &err), 0);
    assert_int_equal(n_links, 2);
    assert_int_equal(r.pos, n);
    truncations_refused(msg, n, read_links);
    /* a link of two lanes is refused, naming it */
    msg[4 + 7 + 5 + 9 + 5 + 5 + 5 + 4] = 2;
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(read_links(&r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "a link of 2 lanes"));
}

/* lane.getShape("90_0"): two points, as sumo sends them (a polygon, 1-byte count) */
static const unsigned char shape_body[] = {
    7, 0xa3, 0x00, 0, 0, 0, 0,
    45, 0xb3, 0x4e, 0, 0, 0, 4, '9', '0', '_', '0', 0x06, 2,
    0x40, 0x64, 0xe5, 0x70, 0xa3, 0xd7, 0x0a, 0x3d, 0xc0, 0x52, 0x71, 0xeb, 0x85, 0x1e, 0xb8, 0x52, /* (167.17, -73.78) */
    0x40, 0x2b, 0xe1, 0x47, 0xae, 0x14, 0x7a, 0xe1, 0xc0, 0x60, 0x5c, 0x7a, 0xe1, 0x47, 0xae, 0x14}; /* (13.94, -130.89) */

static int read_shape2(sim_traci_reader *r, sim_error *err)
{
    double xy[2][2];
    int n, rc = sim_traci_read_status(r, SIM_TRACI_CMD_GET_LANE_VARIABLE, err);
    return rc ? rc : sim_traci_read_shape(r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, xy, 2, &n, err);
}

static void a_lane_shape(void **state)
{
    unsigned char msg[128];
    size_t n = answer(msg, shape_body, sizeof shape_body);
    sim_traci_reader r;
    sim_error err = {0};
    double xy[4][2];
    int k;
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GET_LANE_VARIABLE, &err), 0);
    assert_int_equal(sim_traci_read_shape(&r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, xy, 4, &k, &err),
                     0);
    assert_int_equal(k, 2);
    assert_true(xy[0][0] == 167.17 && xy[0][1] == -73.78 && xy[1][0] == 13.94 && xy[1][1] == -130.89);
    assert_int_equal(r.pos, n);
    truncations_refused(msg, n, read_shape2);
    /* more points than room: said, not written past */
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GET_LANE_VARIABLE, &err), 0);
    assert_int_equal(sim_traci_read_shape(&r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, xy, 1, &k, &err),
                     SIM_ETOOBIG);
}

/* trafficlight.getIDList(): ["106", "172"] */
static const unsigned char ids_body[] = {7, 0xa2, 0x00, 0, 0, 0, 0,
                                         26, 0xb2, 0x00, 0, 0, 0, 0, 0x0e, 0, 0, 0, 2,
                                         0, 0, 0, 3, '1', '0', '6', 0, 0, 0, 3, '1', '7', '2'};

static int on_id(int index, sim_traci_str s, void *user)
{
    char *out = user;
    memcpy(out + 4 * index, s.s, (size_t)s.len);
    return 0;
}

static int read_ids(sim_traci_reader *r, sim_error *err)
{
    int rc = sim_traci_read_status(r, SIM_TRACI_CMD_GET_TL_VARIABLE, err);
    return rc ? rc : sim_traci_read_get_strings(r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, NULL, NULL, err);
}

static void a_string_list(void **state)
{
    unsigned char msg[64];
    size_t n = answer(msg, ids_body, sizeof ids_body);
    sim_traci_reader r;
    sim_error err = {0};
    char got[9] = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_GET_TL_VARIABLE, &err), 0);
    assert_int_equal(sim_traci_read_get_strings(&r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, on_id, got,
                                                &err), 0);
    assert_memory_equal(got, "106\0" "172", 7);
    assert_int_equal(r.pos, n);
    truncations_refused(msg, n, read_ids);
}

/* A step whose answer holds a light's variable subscription result and a context
 * result of persons: both handed over with their response and domain. */
static const unsigned char step2_body[] = {
    7, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 2,
    21, 0xe2, 0, 0, 0, 3, '1', '0', '6', 1, 0x20, 0x00, 0x0c, 0, 0, 0, 4, 'r', 'G', 'y', 'u', /* "rGyu" */
    32, 0x94, 0, 0, 0, 3, 'e', 'g', 'o', 0xae, 1, 0, 0, 0, 1, 0, 0, 0, 2, 'p', '1',
    0x43, 0x00, 0x0b, 0x40, 0x56, 0x80, 0, 0, 0, 0, 0}; /* p1: angle 90 */

static int kinds;
static int on_any(const sim_traci_object *o, void *user)
{
    (void)user;
    if (o->response == SIM_TRACI_RESPONSE_SUBSCRIBE_TL_VARIABLE) {
        assert_int_equal(o->domain, 0);
        assert_memory_equal(o->id, "106", 3);
        assert_int_equal(o->var[0], SIM_TRACI_TL_RED_YELLOW_GREEN_STATE);
        assert_int_equal(o->value[0].s_len, 4);
        assert_memory_equal(o->value[0].s, "rGyu", 4);
        kinds |= 1;
    } else {
        assert_int_equal(o->response, SIM_TRACI_RESPONSE_SUBSCRIBE_VEHICLE_CONTEXT);
        assert_int_equal(o->domain, SIM_TRACI_CMD_GET_PERSON_VARIABLE);
        assert_memory_equal(o->id, "p1", 2);
        assert_true(o->value[0].d == 90);
        kinds |= 2;
    }
    return 0;
}

static int read_step2(sim_traci_reader *r, sim_error *err)
{
    int rc = sim_traci_read_status(r, SIM_TRACI_CMD_SIMSTEP, err);
    return rc ? rc : sim_traci_read_step(r, NULL, NULL, err);
}

static void step_with_light_and_person_results(void **state)
{
    unsigned char msg[128];
    size_t n = answer(msg, step2_body, sizeof step2_body);
    sim_traci_reader r;
    sim_error err = {0};
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    kinds = 0;
    assert_int_equal(read_step2(&r, &err), 0);
    assert_int_equal(sim_traci_reader_init(&r, msg, n, &err), 0);
    assert_int_equal(sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err), 0);
    assert_int_equal(sim_traci_read_step(&r, on_any, NULL, &err), 0);
    assert_int_equal(kinds, 3);
    assert_int_equal(r.pos, n);
    truncations_refused(msg, n, read_step2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commands_are_the_specified_bytes),
        cmocka_unit_test(statuses_and_version),
        cmocka_unit_test(step_with_a_context_subscription),
        cmocka_unit_test(the_leader),
        cmocka_unit_test(light_and_person_commands_are_the_specified_bytes),
        cmocka_unit_test(controlled_links),
        cmocka_unit_test(a_lane_shape),
        cmocka_unit_test(a_string_list),
        cmocka_unit_test(step_with_light_and_person_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
