/* libFuzzer target: the OpenDRIVE reader on arbitrary bytes. Any input must give either
 * a road network or an error naming file, line and element, never a crash, leak or
 * sanitizer report; what loads is then queried (poses, location, the lane graph). */
#include <stddef.h>
#include <stdint.h>

#include "sim_xodr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_roadnet net;
    sim_xodr_report rep;
    sim_error err = {0};
    if (sim_xodr_parse((const char *)data, size, "fuzz.xodr", &net, &rep, &err) != SIM_OK) return 0;
    for (int i = 0; i < net.n_roads && i < 8; i++) {
        const sim_road *r = &net.roads[i];
        sim_road_pose p;
        sim_road_pose_at(&net, i, 0.5 * r->length, 1.0, &p);
        sim_road_loc loc;
        sim_roadnet_locate(&net, p.x, p.y, &loc);
        sim_lane_ref from = {i, 0, -1, 1}, next[8];
        if (r->n_sections && sim_road_lane(r, 0, -1)) sim_roadnet_lane_next(&net, &from, next, 8);
    }
    sim_roadnet_free(&net);
    return 0;
}
