/* sim_motion_packet: the pose datagram (sim_motion_packet.h). */
#include "sim_motion_packet.h"

#include <string.h>

static void put(uint8_t *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *b, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static void put_f64(uint8_t *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put(b, v, 8);
}

static double get_f64(const uint8_t *b)
{
    uint64_t v = get(b, 8);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

void sim_motion_packet_encode(const sim_motion_packet *p, uint8_t buf[SIM_MOTION_PACKET_SIZE])
{
    memcpy(buf, "SIMM", 4);
    put(buf + 4, SIM_MOTION_PACKET_VERSION, 2);
    put(buf + 6, (uint64_t)p->legs, 2);
    put(buf + 8, p->seq, 4);
    put(buf + 12, (p->limits & 0xfu) | ((unsigned)p->state & 3u) << 8, 4);
    put_f64(buf + 16, p->t);
    for (int k = 0; k < 6; k++) put_f64(buf + 24 + 8 * k, p->pose[k]);
    for (int k = 0; k < 6; k++) put_f64(buf + 72 + 8 * k, k < p->legs ? p->len[k] : 0);
}

int sim_motion_packet_decode(const uint8_t *buf, size_t n, sim_motion_packet *p, sim_error *err)
{
    if (n != SIM_MOTION_PACKET_SIZE)
        return sim_error_set(err, SIM_EINVAL, "motion packet of %zu bytes, expected %d", n, SIM_MOTION_PACKET_SIZE);
    if (memcmp(buf, "SIMM", 4) != 0 || get(buf + 4, 2) != SIM_MOTION_PACKET_VERSION)
        return sim_error_set(err, SIM_EINVAL, "not a version %d motion packet", SIM_MOTION_PACKET_VERSION);
    p->legs = (int)get(buf + 6, 2);
    if (p->legs < 1 || p->legs > 6) return sim_error_set(err, SIM_EINVAL, "motion packet with %d actuators", p->legs);
    p->seq = (uint32_t)get(buf + 8, 4);
    uint32_t flags = (uint32_t)get(buf + 12, 4);
    p->limits = flags & 0xfu;
    p->state = (sim_motion_state)((flags >> 8) & 3u);
    p->t = get_f64(buf + 16);
    for (int k = 0; k < 6; k++) p->pose[k] = get_f64(buf + 24 + 8 * k);
    for (int k = 0; k < 6; k++) p->len[k] = get_f64(buf + 72 + 8 * k);
    return SIM_OK;
}

const char *sim_motion_state_name(sim_motion_state s)
{
    static const char *const names[] = {"neutral", "fading_in", "running", "fading_out"};
    return (unsigned)s < 4 ? names[s] : "?";
}
