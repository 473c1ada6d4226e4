/* scenery: everything that stands beside the roads, drawn instanced by kind: the
 * scenario's scenery rules (common/scenery), its explicit objects and the road data's
 * own objects (sim_roadnet.objects, OpenDRIVE <object>s). One unit mesh per kind (tree,
 * bush, delineator post, guard rail, barrier, kerb, building, street light, marker,
 * gantry, box); each frame the objects near enough and inside the frustum go into one
 * instance buffer per kind, so draw calls grow with kinds, not with objects. Objects
 * with an outline (OpenDRIVE footprints) are one static mesh. */
#ifndef RN_SCENERY_H
#define RN_SCENERY_H

#include <stdbool.h>

#include "gfx.h"
#include "sim_camera.h"
#include "sim_objects.h"
#include "sim_scenario.h"

typedef struct rn_scenery_kind {
    GLuint vao, vbo, ibo, inst;   /* unit mesh and its instance buffer */
    int n_index, cap_inst;
} rn_scenery_kind;

typedef struct rn_scenery_order {
    double d;                     /* squared distance from the eye */
    int slot;                     /* instance in the frame's scratch data */
} rn_scenery_order;

typedef struct rn_scenery {
    sim_object_list list;         /* owned: rules' placements, explicit and road objects */
    rn_scenery_kind kinds[SIM_OBJ_KIND_COUNT];
    int kind_first[SIM_OBJ_KIND_COUNT], kind_count[SIM_OBJ_KIND_COUNT]; /* list is sorted by kind */
    gfx_mesh outlines;            /* extruded footprints (static) */
    float *scratch;               /* per-frame instance data */
    rn_scenery_order *order;
    int cap_scratch;
    double range;                 /* m: draw distance of trees and buildings; small
                                     things get a third of it; <= 0: nothing drawn */
    int draw_calls;
    long triangles, instances;    /* drawn last frame */
    /* the instanced programs, set by the scene: concrete kinds are drawn with the one
     * with detail and its u_material (-1: none), prog bound again after (prog_detail 0:
     * the bound program draws all) */
    GLuint prog, prog_detail;
    GLint u_material;
    bool from_model[SIM_OBJ_KIND_COUNT]; /* the kind's mesh came from a model file */
} rn_scenery;

/* Places the scenario's scenery (its section, or the rules' defaults) and adds the road
 * network's objects; builds the meshes (GL context current). */
int rn_scenery_init(rn_scenery *s, const sim_scenario *sc, sim_error *err);
void rn_scenery_free(rn_scenery *s);
/* Trees and buildings from the model files DIR/tree.glb and DIR/building.glb (made by
 * scripts/make-models.py; NULL dir: "models") in place of the built-in shapes, their
 * bounds fitted to each object's box, still one draw per kind. A file that cannot be
 * loaded is named on stderr and the built-in shape stays. Returns how many kinds came
 * from files, or the first error (err names the file; the others were still tried). */
int rn_scenery_use_models(rn_scenery *s, const char *dir, sim_error *err);
/* With the instanced program prog bound (its and prog_detail's u_view_proj etc. set by
 * the caller): draws what lies within range of the eye and inside the frustum. */
void rn_scenery_draw(rn_scenery *s, const sim_camera *cam, const sim_frustum *f);
/* The heads of the (at most max) street lights nearest the eye, not behind it by more
 * than 20 m, within 150 m: world positions into xyz (3 floats each); returns how many. */
int rn_scenery_lamps(const rn_scenery *s, const sim_camera *cam, float *xyz, int max);
/* With the lit program bound: the outline mesh. */
void rn_scenery_draw_outlines(rn_scenery *s, const sim_frustum *f);

#endif
