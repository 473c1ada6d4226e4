/* scene: one frame of one view: sky, terrain, roads and marks, signs, the other cars,
 * the ego car (cockpit from the driver's seat, the whole car in the chase view) and
 * the HUD, under the light of day, dusk or night and in the scenario's fog. */
#ifndef RN_SCENE_H
#define RN_SCENE_H

#include "gfx.h"
#include "hud.h"
#include "objects.h"
#include "roads.h"
#include "sim_camera.h"
#include "sim_scenario.h"
#include "terrain.h"
#include "traffic_in.h"

typedef struct rn_scene {
    const sim_scenario *sc;
    rn_terrain terrain;
    rn_roads roads;
    rn_objects objects;
    rn_hud hud;
    GLuint lit, tex, sky, empty_vao;
    sim_view_rig rig;          /* eye point and car size */
    double cog_height;         /* m */
    bool draw_terrain, draw_roads, draw_cars; /* all true but in tests of one part */
    bool magenta;              /* no sky: a magenta background, so that cracks show */
    bool no_hud;
} rn_scene;

/* What a frame shows, besides the static scenario. */
typedef struct rn_frame_state {
    sim_pose ego;              /* centre of gravity, interpolated */
    bool have_ego;
    const rn_agent *agents;
    int n_agents;
    sim_light light;           /* day, dawn, dusk, night */
    double visibility;         /* m; <= 0: clear (20 km) */
    sim_weather weather;
    double clock;              /* s, for blinking indicators */
    bool ego_brake;
    double ego_speed, ego_steer; /* m/s; rad at the front wheels: the ego model's wheels */
} rn_frame_state;

typedef struct rn_view_opts {
    sim_view view;
    double yaw_offset, fov_y;  /* rad; fov_y <= 0: the view's default */
} rn_view_opts;

typedef struct rn_frame_stats {
    long triangles;            /* terrain triangles */
    int draw_calls;
    int terrain_blocks, culled;
    int min_level, max_level;  /* LOD levels drawn */
    int stitched;              /* blocks with at least one stitched edge */
} rn_frame_stats;

/* Loads the shaders from shader_dir and builds the scenery (GL context current). */
int rn_scene_init(rn_scene *s, const sim_scenario *sc, const char *shader_dir, const sim_view_rig *rig,
                  double cog_height, sim_error *err);
void rn_scene_free(rn_scene *s);
/* Draws the frame into the current framebuffer (w x h) and fills the camera used. */
int rn_scene_draw(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int w, int h, sim_camera *cam,
                  rn_frame_stats *stats);

#endif
