/* sim_objects.c - the list of roadside objects (sim_objects.h). */
#include "sim_objects.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SIM_OBJ_KIND_COUNT] = {
    [SIM_OBJ_BOX] = "box",
    [SIM_OBJ_TREE] = "tree",
    [SIM_OBJ_BUSH] = "bush",
    [SIM_OBJ_DELINEATOR] = "delineator",
    [SIM_OBJ_GUARD_RAIL] = "guard_rail",
    [SIM_OBJ_BARRIER] = "barrier",
    [SIM_OBJ_BUILDING] = "building",
    [SIM_OBJ_STREET_LIGHT] = "street_light",
    [SIM_OBJ_POLE] = "pole",
    [SIM_OBJ_GANTRY] = "gantry",
    [SIM_OBJ_KERB] = "kerb",
    [SIM_OBJ_MODEL] = "model",
};

const char *sim_object_kind_name(sim_object_kind k)
{
    return (unsigned)k < SIM_OBJ_KIND_COUNT ? kind_names[k] : NULL;
}

int sim_object_kind_parse(const char *name)
{
    if (!name) return -1;
    for (int k = 0; k < SIM_OBJ_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0) return k;
    return -1;
}

static char *dup_or_null(const char *s, int *failed)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *failed = 1;
    return d;
}

sim_world_object *sim_object_list_add(sim_object_list *list, const sim_world_object *o)
{
    if (list->n == list->cap) {
        int cap = list->cap ? list->cap * 2 : 16;
        sim_world_object *items = realloc(list->items, (size_t)cap * sizeof *items);
        if (!items) return NULL;
        list->items = items;
        list->cap = cap;
    }
    sim_world_object copy = *o;
    int failed = 0;
    copy.id = dup_or_null(o->id, &failed);
    copy.model = dup_or_null(o->model, &failed);
    copy.outline = NULL;
    if (o->n_outline > 0 && o->outline) {
        copy.outline = malloc((size_t)o->n_outline * 2 * sizeof *copy.outline);
        if (copy.outline)
            memcpy(copy.outline, o->outline, (size_t)o->n_outline * 2 * sizeof *copy.outline);
        else
            failed = 1;
    } else {
        copy.n_outline = 0;
    }
    if (failed) {
        free(copy.id);
        free(copy.model);
        free(copy.outline);
        return NULL;
    }
    list->items[list->n] = copy;
    return &list->items[list->n++];
}

void sim_object_list_free(sim_object_list *list)
{
    for (int i = 0; i < list->n; i++) {
        free(list->items[i].id);
        free(list->items[i].model);
        free(list->items[i].outline);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}
