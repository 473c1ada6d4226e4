/* screens: the screens file of simctl run (see screens.h). */
#include "screens.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_json.h"

static const char *const VIEWS[] = {"front", "left", "right", "rear-mirror", "left-mirror", "right-mirror", "chase", NULL};
static const char *const TOP_KEYS[] = {"format", "screens", NULL};
static const char *const SCREEN_KEYS[] = {"view", "name", "display", "fullscreen", "size", "pos", "yaw_offset_deg",
                                          "fov_deg", NULL};

static int screen(sim_json *j, const cJSON *o, const char *path, run_screen *s)
{
    memset(s, 0, sizeof *s);
    int view, w, h, x, y;
    char extra;
    int rc = sim_json_object(j, o, path);
    if (!rc) rc = sim_json_keys(j, o, path, SCREEN_KEYS, -1);
    if (!rc) rc = sim_json_enum(j, o, path, "view", -1, VIEWS, -1, &view);
    if (!rc) snprintf(s->view, sizeof s->view, "%s", VIEWS[view]);
    if (!rc) rc = sim_json_strcpy(j, o, path, "name", false, s->name, sizeof s->name);
    if (!rc) rc = sim_json_int(j, o, path, "display", false, -1, 0, 63, &s->display);
    if (!rc) rc = sim_json_bool(j, o, path, "fullscreen", false, false, &s->fullscreen);
    if (!rc) rc = sim_json_strcpy(j, o, path, "size", false, s->size, sizeof s->size);
    if (!rc) rc = sim_json_strcpy(j, o, path, "pos", false, s->pos, sizeof s->pos);
    if (!rc) rc = sim_json_num(j, o, path, "yaw_offset_deg", false, NAN, SIM_JSON_RANGE, -180, 180, &s->yaw_offset_deg);
    if (!rc) rc = sim_json_num(j, o, path, "fov_deg", false, NAN, SIM_JSON_RANGE, 5, 150, &s->fov_deg);
    char p[SIM_JSON_PATH_MAX];
    if (!rc && s->size[0] && (sscanf(s->size, "%dx%d%c", &w, &h, &extra) != 2 || w < 16 || h < 16))
        rc = sim_json_found(j, sim_json_key_path(p, path, "size"), cJSON_GetObjectItem(o, "size"),
                            "\"WIDTHxHEIGHT\" in pixels, e.g. \"1920x1080\"");
    if (!rc && s->pos[0] && sscanf(s->pos, "%d,%d%c", &x, &y, &extra) != 2)
        rc = sim_json_found(j, sim_json_key_path(p, path, "pos"), cJSON_GetObjectItem(o, "pos"),
                            "\"X,Y\" in pixels on the desktop, e.g. \"0,0\"");
    return rc;
}

const char *run_screen_bus_name(const run_screen *s, char *buf, size_t size)
{
    if (s->name[0]) snprintf(buf, size, "%s", s->name);
    else if (!strcmp(s->view, "front")) snprintf(buf, size, "render");
    else snprintf(buf, size, "render-%s", s->view);
    return buf;
}

int run_screens_load(const char *path, run_screens *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    out->front = -1;
    char *text;
    size_t len;
    int rc = sim_file_read(path, &text, &len, err);
    if (rc) return rc;
    sim_json j = {.file = path, .err = err};
    cJSON *root = NULL;
    rc = sim_json_parse(&j, text, len, &root);
    free(text);
    const cJSON *list = NULL;
    const char *format = NULL;
    if (!rc) rc = sim_json_object(&j, root, "");
    if (!rc) rc = sim_json_keys(&j, root, "", TOP_KEYS, -1);
    if (!rc) rc = sim_json_str(&j, root, "", "format", true, NULL, &format);
    if (!rc && strcmp(format, "sim-screens/1") != 0)
        rc = sim_json_found(&j, "format", cJSON_GetObjectItem(root, "format"), "\"sim-screens/1\"");
    if (!rc) rc = sim_json_array(&j, root, "", "screens", true, &list);
    if (!rc && (cJSON_GetArraySize(list) < 1 || cJSON_GetArraySize(list) > RUN_MAX_SCREENS))
        rc = sim_json_fail(&j, SIM_EINVAL, "screens", "found %d screens, expected 1..%d", cJSON_GetArraySize(list),
                           RUN_MAX_SCREENS);
    const cJSON *it;
    int i = 0;
    if (!rc) cJSON_ArrayForEach(it, list) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "screens", i);
        run_screen *s = &out->s[i];
        if ((rc = screen(&j, it, p, s))) break;
        char mine[64], other[64];
        run_screen_bus_name(s, mine, sizeof mine);
        for (int k = 0; k < i && !rc; k++)
            if (strcmp(run_screen_bus_name(&out->s[k], other, sizeof other), mine) == 0)
                rc = sim_json_fail(&j, SIM_EINVAL, p,
                                   "a second screen named \"%s\" on the bus (screens[%d] is too): give it a \"name\"",
                                   mine, k);
        if (rc) break;
        if (!strcmp(mine, "render")) out->front = i;
        i++;
    }
    out->n = i;
    cJSON_Delete(root);
    return rc;
}
