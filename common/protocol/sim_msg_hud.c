/* sim_msg_hud: hud.text encode and decode (sim_msg_hud.h). */
#include "sim_msg_hud.h"

#include <math.h>
#include <string.h>

static const char *const area_names[SIM_HUD_AREA_COUNT] = {"top", "center", "bottom", "left", "right"};

const char *sim_hud_area_name(sim_hud_area a)
{
    return (unsigned)a < SIM_HUD_AREA_COUNT ? area_names[a] : "?";
}

int sim_hud_area_parse(const char *name)
{
    for (int i = 0; name && i < SIM_HUD_AREA_COUNT; i++)
        if (strcmp(name, area_names[i]) == 0)
            return i;
    return -1;
}

cJSON *sim_msg_hud_text_encode(const sim_msg_hud_text *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "area", sim_hud_area_name(m->area)) ||
        !cJSON_AddStringToObject(o, "text", m->text))
        goto fail;
    if (m->has_color) {
        cJSON *c = cJSON_AddArrayToObject(o, "color");
        for (int i = 0; c && i < 3; i++) {
            cJSON *v = cJSON_CreateNumber(m->color[i]);
            if (!v || !cJSON_AddItemToArray(c, v)) {
                cJSON_Delete(v);
                goto fail;
            }
        }
        if (!c)
            goto fail;
    }
    if (m->ttl_s > 0 && !cJSON_AddNumberToObject(o, "ttl_s", m->ttl_s))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

int sim_msg_hud_text_decode(const cJSON *msg, sim_msg_hud_text *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *area = cJSON_GetObjectItemCaseSensitive(msg, "area");
    int a = cJSON_IsString(area) ? sim_hud_area_parse(area->valuestring) : -1;
    if (a < 0)
        return sim_error_set(err, SIM_EINVAL,
                             "hud.text: \"area\" must be one of \"top\", \"center\", \"bottom\", \"left\", \"right\"");
    out->area = (sim_hud_area)a;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(msg, "text");
    if (!cJSON_IsString(text))
        return sim_error_set(err, SIM_EINVAL, "hud.text: \"text\" must be a string (empty clears the area)");
    if (strlen(text->valuestring) > SIM_HUD_TEXT_MAX)
        return sim_error_set(err, SIM_EINVAL, "hud.text: \"text\" is longer than %d bytes", SIM_HUD_TEXT_MAX);
    strcpy(out->text, text->valuestring);
    const cJSON *color = cJSON_GetObjectItemCaseSensitive(msg, "color");
    if (color && !cJSON_IsNull(color)) {
        if (!cJSON_IsArray(color) || cJSON_GetArraySize(color) != 3)
            return sim_error_set(err, SIM_EINVAL, "hud.text: \"color\" must be [r, g, b] with each 0..1");
        for (int i = 0; i < 3; i++) {
            const cJSON *v = cJSON_GetArrayItem(color, i);
            if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1))
                return sim_error_set(err, SIM_EINVAL, "hud.text: \"color\" must be [r, g, b] with each 0..1");
            out->color[i] = v->valuedouble;
        }
        out->has_color = true;
    }
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(msg, "ttl_s");
    if (ttl && !cJSON_IsNull(ttl)) {
        if (!cJSON_IsNumber(ttl) || !(ttl->valuedouble >= 0) || !isfinite(ttl->valuedouble))
            return sim_error_set(err, SIM_EINVAL, "hud.text: \"ttl_s\" must be a number of seconds >= 0");
        out->ttl_s = ttl->valuedouble;
    }
    return SIM_OK;
}
