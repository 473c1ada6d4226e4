/* sim_msg_storyboard: storyboard.event (see sim_msg_storyboard.h). */
#include "sim_msg_storyboard.h"

#include <stdio.h>
#include <string.h>

#include "sim_json.h"

static const char *const KINDS[] = {"story", "act", "maneuverGroup", "maneuver", "event", "action", NULL};
static const char *const TRANSITIONS[] = {"startTransition", "endTransition", "stopTransition", "skipTransition", NULL};

cJSON *sim_msg_storyboard_event_encode(const sim_msg_storyboard_event *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "element", m->element) || !cJSON_AddStringToObject(o, "kind", m->kind) ||
        !cJSON_AddStringToObject(o, "transition", m->transition)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_storyboard_event_decode(const cJSON *msg, sim_msg_storyboard_event *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_STORYBOARD_EVENT, .err = err};
    memset(out, 0, sizeof *out);
    int kind, tr;
    int ret = sim_json_strcpy(&j, msg, "", "element", true, out->element, sizeof out->element);
    if (!ret) ret = sim_json_enum(&j, msg, "", "kind", -1, KINDS, -1, &kind);
    if (!ret) ret = sim_json_enum(&j, msg, "", "transition", -1, TRANSITIONS, -1, &tr);
    if (!ret) {
        snprintf(out->kind, sizeof out->kind, "%s", KINDS[kind]);
        snprintf(out->transition, sizeof out->transition, "%s", TRANSITIONS[tr]);
    }
    return ret;
}
