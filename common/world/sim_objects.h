/* sim_objects.h - what stands beside the roads: trees, posts, guard rails, buildings,
 * street lights, OpenDRIVE <object>s, explicit scenery objects of a scenario.
 *
 * One list type serves every source (OpenDRIVE import, the scenery rules of a
 * scenario, a scenario's explicit objects) so that the renderer draws them one way
 * (instanced by kind) and other modules (gaze hit tests, traffic) read the same data.
 * Pure data; no I/O.
 *
 * Ownership: a sim_object_list owns its items and each item's strings and outline;
 * sim_object_list_free releases all of it. */
#ifndef SIM_OBJECTS_H
#define SIM_OBJECTS_H

typedef enum {
    SIM_OBJ_BOX,          /* anything known only by its bounding box */
    SIM_OBJ_TREE,
    SIM_OBJ_BUSH,
    SIM_OBJ_DELINEATOR,   /* delineator post */
    SIM_OBJ_GUARD_RAIL,   /* a segment: from the pose, length along heading */
    SIM_OBJ_BARRIER,      /* concrete central barrier segment, as a guard rail */
    SIM_OBJ_BUILDING,
    SIM_OBJ_STREET_LIGHT,
    SIM_OBJ_POLE,
    SIM_OBJ_GANTRY,
    SIM_OBJ_KERB,         /* a segment, as a guard rail */
    SIM_OBJ_MODEL,        /* drawn from `model` (a glTF file), box as fallback */
    SIM_OBJ_KIND_COUNT
} sim_object_kind;

typedef struct sim_world_object {
    sim_object_kind kind;
    char *id;             /* owned, may be NULL (OpenDRIVE object id, scenario name) */
    char *model;          /* owned, may be NULL: a model file for SIM_OBJ_MODEL or to
                             replace the kind's default look */
    double x, y, z;       /* world position of the base centre, m (z: the ground there) */
    double heading;       /* rad, counter-clockwise from +x */
    double length, width, height; /* bounding box, m (length along heading) */
    double *outline;      /* owned, may be NULL: n_outline (x, y) world points of a
                             footprint (OpenDRIVE <outline>), drawn extruded to height */
    int n_outline;
} sim_world_object;

typedef struct sim_object_list {
    sim_world_object *items;
    int n, cap;
} sim_object_list;

/* Appends a copy of *o (its id, model and outline are copied). Returns the new item,
 * or NULL when out of memory (the list is unchanged). */
sim_world_object *sim_object_list_add(sim_object_list *list, const sim_world_object *o);
void sim_object_list_free(sim_object_list *list);
/* "tree", "guard_rail", ...: the name scenario files and reports use; NULL if unknown. */
const char *sim_object_kind_name(sim_object_kind k);
/* The kind named so, or -1. */
int sim_object_kind_parse(const char *name);

#endif
