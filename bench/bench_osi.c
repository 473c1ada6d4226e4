/* bench_osi: one osi3.GroundTruth with the host and 100 traffic vehicles (common/osi:
 * the conversions from the bus's structs and the protobuf-c encoding) against the bus's
 * own JSON traffic.state of the same 100 vehicles (sim_msg_traffic_state_encode and
 * cJSON_PrintUnformatted, as sim_bus_publish prints it) in the same run (issue 43:
 * "GroundTruth with 100 moving objects at 100 Hz: CPU per message against the bus's own
 * JSON traffic.state encoding", goal <= 1x). Prints CPU microseconds per message (this
 * thread's CPU clock), bytes per message, the share of one core at 100 Hz, and the
 * ratio OSI / JSON.
 *
 *   build/bench/bench_osi [MESSAGES, default 20000] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench_util.h"
#include "sim_osi.h"

#define N_VEH 100

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    static sim_msg_traffic_vehicle v[N_VEH];
    uint64_t rs = 42;
    for (int i = 0; i < N_VEH; i++) {
        snprintf(v[i].id, sizeof v[i].id, "a%d", i);
        snprintf(v[i].model, sizeof v[i].model, i % 10 == 0 ? "truck" : "car");
        snprintf(v[i].road, sizeof v[i].road, "mw_west");
        v[i].pos[0] = 1000 * bench_urand(&rs), v[i].pos[1] = -10 * bench_urand(&rs), v[i].pos[2] = 0;
        v[i].heading = 0.1 * bench_urand(&rs);
        v[i].size[0] = 4.5, v[i].size[1] = 1.8, v[i].size[2] = 1.5;
        v[i].velocity[0] = 30 * bench_urand(&rs), v[i].velocity[1] = bench_urand(&rs), v[i].velocity[2] = 0;
        v[i].brake = i % 3 == 0, v[i].left = i % 7 == 0;
        v[i].lane = -2, v[i].s = v[i].pos[0];
    }
    sim_msg_vehicle_state ego;
    sim_msg_vehicle_state_clear(&ego);
    ego.pos[0] = 500, ego.pos[1] = -5, ego.pos[2] = 0.52, ego.heading = 0.05, ego.pitch = 0.001, ego.roll = 0;
    ego.vel[0] = 25, ego.vel[1] = 1, ego.vel[2] = 0;
    ego.ang_vel_body[0] = 0, ego.ang_vel_body[1] = 0, ego.ang_vel_body[2] = 0.01;
    ego.accel_body[0] = 0.5, ego.accel_body[1] = 0, ego.accel_body[2] = 0;
    ego.brake = 0;
    sim_osi_ego_geometry g = {.box_half = {2.235, 0.87, 0.63}, .box_offset = {-0.14, 0, 0.26},
                              .rear_axle = {-1.376, 0, -0.204}, .front_axle = {1.349, 0, -0.204},
                              .wheel_radius = 0.316};
    sim_osi_environment env;
    sim_osi_environment_from(SIM_LIGHT_DAY, 10.5, SIM_WEATHER_CLOUDY, 8000, 0, &env);

    /* the bus's JSON: payload, envelope, one line */
    double json_bytes = 0, osi_bytes = 0;
    double t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    for (long k = 0; k < n; k++) {
        v[0].pos[0] += 0.01;
        sim_msg_traffic_state m = {.run = 0, .total = N_VEH, .vehicles = v, .n_vehicles = N_VEH};
        cJSON *pl = sim_msg_traffic_state_encode(&m);
        cJSON *msg = cJSON_CreateObject();
        cJSON_AddStringToObject(msg, "topic", "traffic.state");
        cJSON_AddStringToObject(msg, "src", "traffic");
        cJSON_AddNumberToObject(msg, "seq", (double)k);
        cJSON_AddNumberToObject(msg, "t", k * 0.01);
        for (const cJSON *it = pl->child; it; it = it->next) cJSON_AddItemReferenceToObject(msg, it->string, (cJSON *)it);
        char *text = cJSON_PrintUnformatted(msg);
        json_bytes += (double)strlen(text);
        free(text);
        cJSON_Delete(msg);
        cJSON_Delete(pl);
    }
    double json_s = bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0;

    static sim_osi_object objs[1 + N_VEH];
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    sim_error err = {0};
    t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    for (long k = 0; k < n; k++) {
        v[0].pos[0] += 0.01;
        sim_osi_object_from_vehicle(&ego, &g, &objs[0]);
        for (int i = 0; i < N_VEH; i++) sim_osi_object_from_traffic(&v[i], &objs[1 + i]);
        sim_osi_ground_truth gt = {.t = k * 0.01, .host_id = SIM_OSI_HOST_ID, .objects = objs,
                                   .n_objects = 1 + N_VEH, .env = &env};
        if (sim_osi_groundtruth_encode(&gt, &buf, &cap, &len, &err)) {
            fprintf(stderr, "bench_osi: %s\n", err.msg);
            return 1;
        }
        osi_bytes += (double)len;
    }
    double osi_s = bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0;
    free(buf);

    double json_us = json_s / n * 1e6, osi_us = osi_s / n * 1e6;
    printf("messages: %ld, each the host and %d traffic vehicles\n", n, N_VEH);
    printf("JSON traffic.state (baseline): %8.1f us CPU, %7.0f bytes per message, %5.2f %% of a core at 100 Hz\n",
           json_us, json_bytes / n, json_us * 100 / 1e4);
    printf("OSI GroundTruth:               %8.1f us CPU, %7.0f bytes per message, %5.2f %% of a core at 100 Hz\n",
           osi_us, osi_bytes / n, osi_us * 100 / 1e4);
    printf("ratio OSI / JSON: CPU %.2fx (goal <= 1x), bytes %.2fx\n", osi_us / json_us, osi_bytes / json_bytes);
    return 0;
}
