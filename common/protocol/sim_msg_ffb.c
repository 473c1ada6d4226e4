/* sim_msg_ffb: ffb.command (see sim_msg_ffb.h). */
#include "sim_msg_ffb.h"

#include <math.h>
#include <stddef.h>

#include "sim_msg_fields.h"

#define F(name, lo, hi) {#name, SIM_MF_CLAMP, SIM_MF_AT(sim_msg_ffb_command, name, SIM_MF_CLAMP, 0), lo, hi, 0}
static const sim_msg_field COMMAND[] = {
    F(torque, -1, 1), F(spring, 0, 1), F(damper, 0, 1), F(rumble, 0, 1), F(rumble_hz, 1, 1000),
};
#undef F
#define N (sizeof COMMAND / sizeof *COMMAND)

cJSON *sim_msg_ffb_command_encode(const sim_msg_ffb_command *m)
{
    return sim_msg_fields_object(m, COMMAND, N);
}

int sim_msg_ffb_command_decode(const cJSON *msg, sim_msg_ffb_command *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_FFB_COMMAND, .err = err};
    sim_msg_ffb_command c;
    int rc = sim_msg_fields_decode(&j, msg, &c, COMMAND, N);
    if (!rc && isnan(c.torque))
        rc = sim_json_found(&j, "torque", NULL, "a number in [-1, 1]");
    if (rc) return rc;
    if (isnan(c.spring)) c.spring = 0;
    if (isnan(c.damper)) c.damper = 0;
    if (isnan(c.rumble)) c.rumble = 0;
    if (isnan(c.rumble_hz)) c.rumble_hz = SIM_MSG_FFB_RUMBLE_HZ;
    *out = c;
    return SIM_OK;
}
