/* sim_msg_hud: the head-up display topics (docs/protocol.md, "hud.text").
 *
 * `hud.text` {area, text, color?, ttl_s?}: any module (an in-car system under test, in
 * any language) shows text in one of the named areas of every render node's HUD; an
 * empty text clears the area, and a ttl clears it after that many seconds. The
 * newest message per area wins. */
#ifndef SIM_MSG_HUD_H
#define SIM_MSG_HUD_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_HUD_TEXT_MAX 1024 /* bytes of text, as for control.hud */

typedef enum {
    SIM_HUD_TOP,
    SIM_HUD_CENTER,
    SIM_HUD_BOTTOM,
    SIM_HUD_LEFT,
    SIM_HUD_RIGHT,
    SIM_HUD_AREA_COUNT
} sim_hud_area;

/* "top", "center", ...; parse returns -1 for an unknown name. */
const char *sim_hud_area_name(sim_hud_area a);
int sim_hud_area_parse(const char *name);

typedef struct sim_msg_hud_text {
    sim_hud_area area;
    char text[SIM_HUD_TEXT_MAX + 1];
    bool has_color;
    double color[3];     /* r, g, b in 0..1 */
    double ttl_s;        /* seconds; 0: until replaced */
} sim_msg_hud_text;

/* {"area":..., "text":..., "color":[r,g,b] when has_color, "ttl_s" when > 0}; caller
 * frees; NULL when out of memory. */
cJSON *sim_msg_hud_text_encode(const sim_msg_hud_text *m);
/* SIM_EINVAL naming `hud.text: "field"` and what was expected. */
int sim_msg_hud_text_decode(const cJSON *msg, sim_msg_hud_text *out, sim_error *err);

#endif
