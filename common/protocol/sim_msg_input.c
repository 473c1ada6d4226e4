/* sim_msg_input: input.controls (see sim_msg_input.h). */
#include "sim_msg_input.h"

#include <math.h>
#include <stddef.h>

#include "sim_msg_fields.h"

#define F(name, kind, lo, hi) {#name, kind, SIM_MF_AT(sim_msg_input_controls, name, kind, 0), lo, hi, 0}
static const sim_msg_field CONTROLS[] = {
    F(steer, SIM_MF_NUM, -1, 1),
    F(steer_deg, SIM_MF_NUM, -3600, 3600),
    F(throttle, SIM_MF_NUM, 0, 1),
    F(brake, SIM_MF_NUM, 0, 1),
    F(clutch, SIM_MF_NUM, 0, 1),
    F(gear, SIM_MF_INT, SIM_MSG_GEAR_MIN, SIM_MSG_GEAR_MAX),
    F(stamp, SIM_MF_NUM, 0, 1e12),
    F(sent, SIM_MF_NUM, 0, 1e12),
};
#undef F
static const sim_msg_field BUTTON[] = {
    {"role", SIM_MF_STR, SIM_MF_AT(sim_msg_input_button, role, SIM_MF_STR, sizeof(((sim_msg_input_button *)0)->role)), 0, 0, sizeof(((sim_msg_input_button *)0)->role)},
    {"pressed", SIM_MF_BOOL, SIM_MF_AT(sim_msg_input_button, pressed, SIM_MF_BOOL, 0), 0, 0, 0},
};
#define N (sizeof CONTROLS / sizeof *CONTROLS)

cJSON *sim_msg_input_controls_encode(const sim_msg_input_controls *m)
{
    sim_msg_input_controls c = *m;
    if (!c.has_gear) c.gear = SIM_MSG_NO_INT;
    if (c.stamp == 0) c.stamp = NAN; /* zero-initialised: not given */
    if (c.sent == 0) c.sent = NAN;
    return sim_msg_fields_object(&c, CONTROLS, N);
}

int sim_msg_input_controls_decode(const cJSON *msg, sim_msg_input_controls *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_INPUT_CONTROLS, .err = err};
    sim_msg_input_controls c;
    int rc = sim_msg_fields_decode(&j, msg, &c, CONTROLS, N);
    if (rc) return rc; /* refused whole: out untouched */
    c.has_gear = c.gear != SIM_MSG_NO_INT;
    if (!c.has_gear) c.gear = 0;
    *out = c;
    return SIM_OK;
}

cJSON *sim_msg_input_button_encode(const sim_msg_input_button *m)
{
    return sim_msg_fields_object(m, BUTTON, 2);
}

int sim_msg_input_button_decode(const cJSON *msg, sim_msg_input_button *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_INPUT_BUTTON, .err = err};
    return sim_msg_fields_decode(&j, msg, out, BUTTON, 2);
}
