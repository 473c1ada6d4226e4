/* sim_msg_task: the secondary-task topics of issue 25 (docs/protocol.md, "Secondary
 * tasks"). The envelope's t is simulation time, s.
 *
 * `drt.stimulus` {id, modality, on, angle_deg?}: the Detection Response Task's stimulus
 *   number id switches on (on true) or off (on false: a response came, or 1 s passed);
 *   modality "visual" (render-node draws a dot angle_deg to the left of straight ahead,
 *   negative: right), "tactile" (input-node vibrates the wheel) or "auditory"
 *   (sound-node beeps). Published by task-node.
 * `drt.response` {source}: the driver pressed the DRT button ("button": the mapped
 *   role `drt` of a wheel or key, "script": the scripted driver). Published by input-node.
 * `gaze.sample` {valid, area?, yaw_deg?, pitch_deg?, confidence?, target?, t_src?, wall?,
 *   sim_t?}: one sample of an eye tracker:
 *   the area of interest it names (one of the vehicle file's `gaze_areas`), or the gaze
 *   direction in the vehicle frame (yaw left +, pitch up +, degrees), or both; valid
 *   false for a sample the tracker lost (blink, no eye found); confidence 0..1 (Pupil's);
 *   target: what the gaze hit (sim_gaze_hit's name, filled by whoever ran the hit test).
 *   When it was taken (docs/instruments.md): t_src on the sender's own clock, wall on
 *   the session's wall clock (Unix s), sim_t in simulation time (a sender that knows
 *   it exactly, e.g. in lockstep); the recorder takes sim_t, else maps wall, else the
 *   arrival time, onto simulation time. */
#ifndef SIM_MSG_TASK_H
#define SIM_MSG_TASK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_NAME_MAX 32

typedef struct sim_msg_drt_stimulus {
    int id;                               /* 1, 2, ... in the session */
    char modality[SIM_MSG_NAME_MAX];      /* "visual", "tactile", "auditory" */
    bool on;
    double angle_deg;                     /* visual: NAN when not given */
} sim_msg_drt_stimulus;

typedef struct sim_msg_drt_response {
    char source[SIM_MSG_NAME_MAX];        /* "button", "key", "script" */
} sim_msg_drt_response;

typedef struct sim_msg_gaze_sample {
    bool valid;
    char area[SIM_MSG_NAME_MAX];          /* "" when the tracker gives none */
    double yaw_deg, pitch_deg;            /* NAN when not given */
    double confidence;                    /* 0..1; NAN when not given */
    char target[SIM_MSG_NAME_MAX];        /* "" when not given */
    double t_src, wall, sim_t;            /* NAN when not given (see above) */
    /* The point on the screen named by area, from a tracker's surface mapping (Pupil's
     * surface tracker: norm_pos, 0..1 from the bottom left corner); NAN when not given.
     * The recorder keeps it in the gaze table (schema 4). */
    double surface_x, surface_y;
} sim_msg_gaze_sample;

/* Encoders return a new object (caller owns; NULL when out of memory). Decoders return
 * SIM_OK or SIM_EINVAL naming "topic: field: found X, expected Y". */
cJSON *sim_msg_drt_stimulus_encode(const sim_msg_drt_stimulus *m);
int sim_msg_drt_stimulus_decode(const cJSON *msg, sim_msg_drt_stimulus *out, sim_error *err);
cJSON *sim_msg_drt_response_encode(const sim_msg_drt_response *m);
int sim_msg_drt_response_decode(const cJSON *msg, sim_msg_drt_response *out, sim_error *err);
/* Every field absent (valid false, NAN, ""): start here and set what is known. */
void sim_msg_gaze_sample_clear(sim_msg_gaze_sample *m);
cJSON *sim_msg_gaze_sample_encode(const sim_msg_gaze_sample *m);
int sim_msg_gaze_sample_decode(const cJSON *msg, sim_msg_gaze_sample *out, sim_error *err);

#endif
