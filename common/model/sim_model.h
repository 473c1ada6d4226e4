/* sim_model: a 3D model file (glTF 2.0 .glb/.gltf; anything Debian's libassimp reads)
 * loaded into plain arrays that a renderer uploads as they are: vertices with normals
 * and base colours, triangle indices, and the model's parts, one per node that holds
 * geometry, under the node's name ("wheel_fl", "paint", "lamp_brake"...), so that a
 * renderer can move some of them (wheels turn, lamps glow).
 *
 * Frame: the simulator's vehicle frame (x forward, y left, z up, metres). glTF's
 * (+Z forward, +Y up, +X left) is turned into it on loading, so a glTF model whose
 * front faces +Z drives forward. Each part's vertices are relative to its pivot (the
 * node's origin, in the model frame; the node's rotation and scale are applied):
 * a wheel turns about the y axis through its pivot.
 *
 * Ownership: sim_model_load* fill a sim_model the caller owns and frees with
 * sim_model_free (which leaves it zeroed). Not thread-safe: libassimp's C API keeps
 * its last error in a global. */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

#define SIM_MODEL_NAME_MAX 64
#define SIM_MODEL_MAX_VERTICES (4 << 20)  /* a file asking for more is refused */

/* Same layout as render-node's gfx_vertex: position, normal, colour. */
typedef struct sim_model_vertex {
    float pos[3], normal[3], color[3];
} sim_model_vertex;

typedef struct sim_model_part {
    char name[SIM_MODEL_NAME_MAX];  /* the node's name ("" when it had none) */
    float pivot[3];                 /* the node's origin in the model frame */
    int first_vertex, n_vertices;   /* into sim_model.v (positions relative to pivot) */
    int first_index, n_indices;     /* into sim_model.idx (indices into all of v) */
    float lo[3], hi[3];             /* bounds in the model frame */
} sim_model_part;

typedef struct sim_model {
    sim_model_vertex *v;
    int nv;
    uint32_t *idx;                  /* triangles, three per face */
    int ni;
    sim_model_part *parts;
    int n_parts;
    float lo[3], hi[3];             /* bounds of every vertex in the model frame */
} sim_model;

/* Loads path. SIM_EIO when it cannot be read, SIM_EINVAL when it is no model libassimp
 * reads or has no triangles, SIM_ETOOBIG past SIM_MODEL_MAX_VERTICES; every message
 * starts with the path. */
int sim_model_load(const char *path, sim_model *out, sim_error *err);
/* The same from memory: hint is the format's file extension ("glb", "gltf"); name is
 * what messages call the data. A .gltf whose buffers are separate files cannot be
 * loaded this way (data: URIs can). */
int sim_model_load_memory(const void *data, size_t len, const char *hint, const char *name, sim_model *out,
                          sim_error *err);
void sim_model_free(sim_model *m);

/* The part called name, or NULL. */
const sim_model_part *sim_model_part_find(const sim_model *m, const char *name);

#endif
