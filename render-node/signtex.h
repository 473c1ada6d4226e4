/* signtex: sign faces drawn with cairo into textures (speed limit, lane change as in
 * the ISO 26022 Lane Change Test, stop, yield, priority, text boards). */
#ifndef RN_SIGNTEX_H
#define RN_SIGNTEX_H

#include "gfx.h"
#include "road_adapter.h"

/* A new texture (caller deletes) for the sign, and the face's size in metres. */
GLuint rn_sign_texture(const ra_sign *s, double *width_m, double *height_m);

#endif
