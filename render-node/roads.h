/* roads: the static scenery made once from the scenario: road surfaces following the
 * elevation, lane marks (solid, broken, double; widths from the road data),
 * shoulders, sidewalks, signs on posts and POI markers. Meshes are cut into chunks
 * along each road so that the frustum culls what is out of view. */
#ifndef RN_ROADS_H
#define RN_ROADS_H

#include "gfx.h"
#include "sim_camera.h"
#include "sim_scenario.h"

#define RN_ROAD_CHUNK 100.0 /* m of road per mesh */
#define RN_ROAD_LIFT 0.02   /* m the surface sits above the ground it follows */
#define RN_MARK_LIFT 0.03

typedef struct rn_sign_quad {
    gfx_mesh mesh;          /* textured face */
    GLuint tex;
    GLuint tex_blank;       /* an LCT board's blank face (0: none), shown while the viewer is
                               further ahead than legible_m (sim_lct_board_at) */
    double legible_m, at[2], travel[2]; /* the board's place and the traffic's direction */
} rn_sign_quad;

typedef struct rn_roads {
    gfx_mesh *surface, *marks;   /* per chunk */
    int n_chunks;
    gfx_mesh furniture;          /* posts, sign backs, POI markers (lit) */
    rn_sign_quad *signs;
    int n_signs;
    int draw_calls;
    double viewer[2];            /* the driver's place, set before drawing the signs */
    GLint u_material;            /* the detail program's, set by the scene (-1: none) */
} rn_roads;

int rn_roads_init(rn_roads *r, const sim_scenario *sc, sim_error *err);
void rn_roads_free(rn_roads *r);
/* With the lit program with detail bound (u_material): marks then the surfaces under
 * them (polygon offset keeps them above the ground); draw_calls counts from 0. */
void rn_roads_draw_surface(rn_roads *r, const sim_frustum *f);
/* With the lit program bound: posts, sign backs, POI markers (draw_calls counts on). */
void rn_roads_draw_furniture(rn_roads *r, const sim_frustum *f);
/* With the textured program bound (u_model identity): the sign faces. */
void rn_roads_draw_signs(rn_roads *r, const sim_frustum *f, GLint u_tex);

#endif
