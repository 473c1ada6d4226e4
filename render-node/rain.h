/* rain: falling drops drawn as short streaks in a box around the eye (world-fixed, so
 * they slant past as the car moves), a few hundred GL lines a frame in one draw call.
 * The wet road itself is lit.frag's (u_wet). */
#ifndef RN_RAIN_H
#define RN_RAIN_H

#include "gfx.h"

#define RN_RAIN_DROPS 900

typedef struct rn_rain {
    GLuint vao, vbo;
    gfx_vertex v[2 * RN_RAIN_DROPS];
} rn_rain;

void rn_rain_init(rn_rain *r);
void rn_rain_free(rn_rain *r);
/* With the lit program bound (u_emissive set to 1 by the caller): the drops at time
 * `clock` (s) around eye, in colour rgb. */
void rn_rain_draw(rn_rain *r, const double eye[3], double clock, const float rgb[3]);

#endif
