/* scene: one frame of one view: sky, terrain, roads and marks, signs, the other cars,
 * the ego car (cockpit from the driver's seat, the whole car in the chase view) and
 * the HUD, under the light of day, dusk or night and in the scenario's fog. */
#ifndef RN_SCENE_H
#define RN_SCENE_H

#include "gfx.h"
#include "hud.h"
#include "lights.h"
#include "objects.h"
#include "roads.h"
#include "rain.h"
#include "scenery.h"
#include "shadow.h"
#include "sim_camera.h"
#include "sim_scenario.h"
#include "terrain.h"
#include "traffic_in.h"

/* --quality: what a frame may cost. low: lighting per vertex (the fragment stage is half
 * of llvmpipe's frame), scenery to 200 m, terrain error 4 px; medium: per-fragment
 * lighting, scenery to 500 m, 2 px; high: scenery to 1200 m, 1.5 px. */
typedef enum { RN_QUALITY_LOW, RN_QUALITY_MEDIUM, RN_QUALITY_HIGH } rn_quality;
/* "low", "medium", "high" -> the preset, or -1. */
int rn_quality_parse(const char *name);
/* The preset's name ("low", "medium", "high"). */
const char *rn_quality_name(rn_quality q);
/* The preset when none was asked for: low on a software rasteriser (a GL_RENDERER
 * naming llvmpipe, softpipe or swrast: there the fragment stage is the frame's cost and
 * medium falls far below 60 fps, docs/performance.md), else medium (real GPUs).
 * software (may be NULL) tells which it was. */
rn_quality rn_quality_for_renderer(const char *gl_renderer, bool *software);
/* The preset's terrain screen-space error, pixels. */
double rn_quality_lod_tolerance(rn_quality q);

/* Anisotropic filtering of the detail textures: at most this many samples (low, others);
 * none on a software renderer, where it costs ten times the frame (llvmpipe: 650 ms of
 * CPU a 1280x720 frame at low instead of 30). */
#define RN_ANISO_LOW 4.0f
#define RN_ANISO 16.0f

/* The lit geometry's, the instanced scenery's and the vehicles' programs, and the lit
 * and instanced ones with the materials' detail (RN_DETAIL, detail.glsl): only what has
 * a material (ground, roads, marks, concrete) is drawn with those, as llvmpipe runs a
 * shader's texture sample for every fragment, the untextured ones' too. */
enum { RN_PROG_LIT, RN_PROG_INST, RN_PROG_CAR, RN_PROG_LIT_DETAIL, RN_PROG_INST_DETAIL, RN_PROG_COUNT };

typedef struct rn_scene {
    rn_quality quality;
    const sim_scenario *sc;
    rn_terrain terrain;
    rn_roads roads;
    rn_objects objects;
    rn_hud hud;
    rn_lights lights;          /* traffic-light heads (lights.c) */
    rn_scenery scenery;
    rn_shadow shadow;          /* medium and high: the sun's shadow map; tex 0 at low */
    rn_rain rain;
    GLuint detail;             /* the materials' texture array (materials.h) */
    float anisotropy;          /* its anisotropic filtering: samples, 1 where the GL has none */
    /* the programs above (vehicles: models.h): [0] without street lights, [1] with them
     * (medium and high: a variant of lit.frag; at low the same programs); lit, inst, car,
     * lit_detail and inst_detail are the frame's (the detail ones the same as lit and
     * inst with no_detail) */
    GLuint programs[2][RN_PROG_COUNT];
    int variant;
    bool variant_no_detail;    /* no_detail when the frame's programs were picked */
    GLuint lit, tex, sky, inst, car, lit_detail, inst_detail, empty_vao;
    sim_view_rig rig;          /* eye point and car size */
    double cog_height;         /* m */
    bool draw_terrain, draw_roads, draw_cars, draw_scenery; /* all true but in tests of one part */
    bool magenta;              /* no sky: a magenta background, so that cracks show */
    bool no_hud;
    bool no_detail;            /* --no-detail: the materials' textures off (the programs without detail.glsl) */
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
    long scenery_triangles, scenery_instances;
    int draw_calls;
    int vehicles, vehicle_draw_calls; /* traffic and the ego drawn (models and boxes), their calls */
    int terrain_blocks, culled;
    int min_level, max_level;  /* LOD levels drawn */
    int stitched;              /* blocks with at least one stitched edge */
} rn_frame_stats;

/* Loads the shaders from shader_dir and builds the scenery (GL context current). */
int rn_scene_init(rn_scene *s, const sim_scenario *sc, const char *shader_dir, const sim_view_rig *rig,
                  double cog_height, rn_quality quality, sim_error *err);
void rn_scene_free(rn_scene *s);
/* Draws the frame into the current framebuffer (w x h) and fills the camera used. */
int rn_scene_draw(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int w, int h, sim_camera *cam,
                  rn_frame_stats *stats);

/* Only the HUD (hud.page: a whole page) over a cleared w x h framebuffer: the study
 * screen's frame (study_screen.c). */
void rn_scene_draw_page(rn_scene *s, int w, int h, double now);

#endif
