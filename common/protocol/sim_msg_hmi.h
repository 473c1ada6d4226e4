/* sim_msg_hmi: what in-car HMI pages under test log (docs/protocol.md, "hmi.touch" and
 * "surt.response"; the pages are the console's, docs/console.md).
 *
 * `hmi.touch` {page, target, x, y}: a touch on an HMI page (its name, the element
 * touched, where in CSS pixels), stamped with the simulation time in the envelope's t.
 * `surt.response` {trial, correct, rt_ms, level, target, chosen}: one response of the
 * Surrogate Reference Task (ISO/TS 14198) page: the trial number (from 1), whether the
 * column chosen holds the target, the time from the display's onset to the touch, the
 * difficulty level, and the target's and the chosen column (from 0). The envelope's t
 * is the simulation time of the touch. */
#ifndef SIM_MSG_HMI_H
#define SIM_MSG_HMI_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_hmi_touch {
    char page[64];
    char target[128];
    double x, y;        /* CSS px from the page's top left; NAN: not given */
} sim_msg_hmi_touch;

typedef enum { SIM_SURT_EASY, SIM_SURT_HARD } sim_surt_level;

typedef struct sim_msg_surt_response {
    int trial;          /* from 1 */
    bool correct;
    double rt_ms;       /* from the display's onset to the response, >= 0 */
    char level[8];      /* "easy" or "hard" */
    int target, chosen; /* columns from 0; SIM_MSG_NO_INT when not given */
} sim_msg_surt_response;

/* Encoders: the payload object (caller frees; NULL when out of memory). */
cJSON *sim_msg_hmi_touch_encode(const sim_msg_hmi_touch *m);
cJSON *sim_msg_surt_response_encode(const sim_msg_surt_response *m);
/* Decoders: SIM_EINVAL / SIM_ERANGE naming `TOPIC: FIELD: found X, expected Y`;
 * hmi.touch needs page and target, surt.response trial, correct, rt_ms and level. */
int sim_msg_hmi_touch_decode(const cJSON *msg, sim_msg_hmi_touch *out, sim_error *err);
int sim_msg_surt_response_decode(const cJSON *msg, sim_msg_surt_response *out, sim_error *err);

#endif
