/* osi-node: the session's world live as ASAM OSI (docs/osi.md, "Live: osi-node").
 * It follows vehicle.state, traffic.state, signal.state and the operator's light
 * command, and publishes one osi3.GroundTruth per tick of the host vehicle, filled as
 * `simctl export --osi` fills a trace (common/osi), to any number of TCP consumers
 * (each message framed as in an .osi file: its length as 4 bytes little-endian, then
 * the message) and, one message per datagram, to a UDP destination.
 *
 * A tick's message goes out when the next tick's vehicle.state comes (the traffic of
 * the tick has come by then in lockstep), or when the node stops. Lanes and lane
 * boundaries (static) are in the first message each TCP consumer gets: a consumer
 * joining late is sent the newest message again at once, with the lanes. Datagrams
 * never carry lanes. Listening beyond loopback needs the token (consumers send it as
 * their first line). --wait-consumers N holds the node off the bus until N consumers
 * are there (so the clock, which waits for it in a session, starts with them).
 * With --lockstep it answers every sim.tick once it has handled what came before. 
 * Exit status: 0 after a signal, 1 when a file cannot be used or a socket not
 * opened, 2 for usage errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osi_node.h"
#include "osi_out.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_msg_sim.h"
#include "sim_node.h"

static void on_fresh(void *user)
{
    osi_node_greet(user);
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    osi_node *n = user;
    if (strcmp(env->topic, SIM_TOPIC_SIM_TICK) == 0 && n->lockstep) {
        /* everything before tick n has been handled (and its message sent): the clock
         * may go on; the dispatcher then never holds more than a tick for this node, so
         * none of its vehicle.state is replaced by a newer one (docs/protocol.md, "Slow
         * consumers") */
        sim_msg_tick tick;
        if (sim_msg_tick_decode(msg, &tick, NULL) != SIM_OK) return;
        sim_msg_ack a = {.n = tick.n};
        cJSON *ack = sim_msg_ack_encode(&a);
        if (ack) sim_bus_publish(sim_node_bus(sn), SIM_TOPIC_SIM_ACK, env->t, ack);
        cJSON_Delete(ack);
    } else if (strcmp(env->topic, SIM_TOPIC_VEHICLE_STATE) == 0) osi_node_vehicle(n, msg, env->t);
    else if (strcmp(env->topic, SIM_TOPIC_TRAFFIC_STATE) == 0) osi_node_traffic(n, msg, env->t);
    else if (strcmp(env->topic, SIM_TOPIC_SIGNAL_STATE) == 0) osi_node_signal(n, msg);
    else if (strcmp(env->topic, "control.light") == 0) osi_node_light(n, msg);
}

static void on_signal(sim_node *sn, int signum, void *user)
{
    osi_node_flush(user); /* the last tick's message */
    sim_node_stop(sn, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    osi_node *n = user;
    if (!n->listen && !n->udp) {
        sim_error_set(err, SIM_EINVAL, "give --listen HOST:PORT (TCP consumers) or --udp HOST:PORT (datagrams), or both");
        return 2;
    }
    if (n->wait_consumers < 0 || (n->wait_consumers > 0 && !n->listen)) {
        sim_error_set(err, SIM_EINVAL, "--wait-consumers %d: expected 0 or more, and --listen", n->wait_consumers);
        return 2;
    }
    if (n->udp_max < 1 || n->udp_max > (int)OSI_OUT_UDP_MAX) {
        sim_error_set(err, SIM_ERANGE, "--udp-max %d: a datagram carries 1 to %u bytes", n->udp_max, OSI_OUT_UDP_MAX);
        return 2;
    }
    sim_node_bus_options(sn)->lockstep = n->lockstep;
    if (osi_node_load(n, err)) return 1;
    uv_loop_t *loop = uv_default_loop();
    /* the bus's token (--token, else SIM_BUS_TOKEN, as sim_bus takes it) */
    const char *token = sim_node_bus_options(sn)->token;
    if (!token || !token[0]) token = getenv("SIM_BUS_TOKEN");
    if (osi_out_open(loop, n->listen, n->udp, token, (size_t)n->udp_max, on_fresh, n, &n->out, err)) {
        osi_node_free(n);
        return 1;
    }
    fprintf(stderr, "osi-node: GroundTruth %s%s%s%s, %zu lanes and %zu boundaries\n", n->listen ? "to TCP consumers at " : "",
            n->listen ? n->listen : "", n->udp ? (n->listen ? " and datagrams to " : "datagrams to ") : "",
            n->udp ? n->udp : "", n->lanes.n_lanes, n->lanes.n_boundaries);
    if (n->wait_consumers > 0) {
        fprintf(stderr, "osi-node: waiting for %d consumer(s) before joining the bus\n", n->wait_consumers);
        while (osi_out_consumers(n->out) < (size_t)n->wait_consumers) uv_run(loop, UV_RUN_ONCE);
    }
    return 0;
}

static void on_stop(sim_node *sn, const char *why, void *user)
{
    osi_node *n = user;
    if (osi_out_oversize(n->out))
        fprintf(stderr, "osi-node: %zu messages were too large for a datagram and not sent over UDP\n",
                osi_out_oversize(n->out));
    osi_out_close(n->out);
    n->out = NULL;
}

static int teardown(sim_node *sn, void *user)
{
    osi_node_free(user);
    return 0;
}

int main(int argc, char **argv)
{
    static osi_node n = {.vehicle = "vehicles/bmw-318i.json", .udp_max = (int)OSI_OUT_UDP_MAX, .lane_step = 2.0};
    const sim_opt opts[] = {
        {"listen", SIM_OPT_STRING, &n.listen, "HOST:PORT", "TCP consumers connect here (loopback without a token)"},
        {"udp", SIM_OPT_STRING, &n.udp, "HOST:PORT", "send each GroundTruth as one datagram there (IPv4)"},
        {"udp-max", SIM_OPT_INT, &n.udp_max, "BYTES", "the largest datagram sent (default and most 65507)"},
        {"wait-consumers", SIM_OPT_INT, &n.wait_consumers, "N", "join the bus only once N TCP consumers are connected (default 0)"},
        {"scenario", SIM_OPT_STRING, &n.scenario, "FILE", "the session's scenario: lanes, traffic-light heads, environment"},
        {"params", SIM_OPT_STRING, &n.params, "NAME=V,...", "its OpenSCENARIO parameter values"},
        {"vehicle", SIM_OPT_STRING, &n.vehicle, "FILE", "the host vehicle's file: its box and axles (default vehicles/bmw-318i.json)"},
        {"lockstep", SIM_OPT_FLAG, &n.lockstep, NULL, "answer every sim.tick: the clock waits for the node, so no tick's state is lost to it"},
        {"lane-step", SIM_OPT_DOUBLE, &n.lane_step, "M", "metres of s between a lane's points (default 2)"},
    };
    static const char *const subs[] = {SIM_TOPIC_SIM_TICK, SIM_TOPIC_VEHICLE_STATE, SIM_TOPIC_TRAFFIC_STATE, SIM_TOPIC_SIGNAL_STATE,
                                       "control.light"};
    const sim_node_desc desc = {
        .prog = "osi-node", .usage = "osi-node --listen HOST:PORT | --udp HOST:PORT [options]",
        .about = "The session's world as ASAM OSI GroundTruth, live over TCP and UDP (docs/osi.md).",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "osi", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs},
        .setup = setup, .on_message = on_message, .on_signal = on_signal, .on_stop = on_stop,
        .teardown = teardown, .user = &n};
    return sim_node_run(&desc, argc, argv);
}
