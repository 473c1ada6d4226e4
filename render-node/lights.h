/* lights: traffic-light heads drawn with their current state: a post, a dark housing
 * facing the traffic it controls, and its lamps (red, amber, green; a pedestrian head
 * red and green), the lit ones glowing. States come from signal.state (session.c);
 * without a bus (screenshots) they are the scenario's controllers' at a given time. */
#ifndef RN_LIGHTS_H
#define RN_LIGHTS_H

#include <stdbool.h>

#include "gfx.h"
#include "sim_camera.h"
#include "sim_lights.h"
#include "sim_scenario.h"

typedef struct rn_light_head {
    gfx_mesh body;                 /* post and housing */
    gfx_mesh lamp[3];              /* red, amber, green (a pedestrian head: red, -, green) */
    double lo[3], hi[3];           /* bounds, for culling */
    sim_light_state state;
} rn_light_head;

typedef struct rn_lights {
    const sim_lights *lights;      /* the scenario's (borrowed) */
    rn_light_head *heads;
    int n;
    GLint u_model, u_tint, u_tint_on, u_emissive;
    int draw_calls;
} rn_lights;

/* Builds every head of sc's road network (GL context current, prog the lit shader),
 * showing the controllers' states at simulation time t. */
/* The lit program whose uniforms the heads set (scene.c switches between variants). */
void rn_lights_set_program(rn_lights *L, GLuint prog);
int rn_lights_init(rn_lights *L, const sim_scenario *sc, GLuint prog, double t, sim_error *err);
void rn_lights_free(rn_lights *L);
/* signal.state: head id shows state (a sim_lights state name); false when the scenario
 * has no such head or the state is unknown. */
bool rn_lights_set(rn_lights *L, const char *id, const char *state);
/* Every head as its controller shows it at simulation time t (screenshots). */
void rn_lights_show_at(rn_lights *L, double t);
/* Draws the visible heads (the lit program in use); clock blinks flashing amber. */
void rn_lights_draw(rn_lights *L, const sim_frustum *f, double clock);

#endif
