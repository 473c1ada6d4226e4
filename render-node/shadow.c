/* shadow: the sun's shadow map (shadow.h). */
#include "shadow.h"

#include <math.h>
#include <string.h>

#define DEPTH 300.0 /* m along the light either side of the centre */

int rn_shadow_init(rn_shadow *s, int size, double radius, sim_error *err)
{
    memset(s, 0, sizeof *s);
    s->size = size;
    s->radius = radius;
    glGenTextures(1, &s->tex);
    glBindTexture(GL_TEXTURE_2D, s->tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    /* comparison in the sampler: linear filtering of the results gives soft edges */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glGenFramebuffers(1, &s->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, s->tex, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        rn_shadow_free(s);
        return sim_error_set(err, SIM_EIO, "shadow map: the driver cannot render depth to a texture (0x%x)", st);
    }
    return SIM_OK;
}

void rn_shadow_free(rn_shadow *s)
{
    if (s->fbo) glDeleteFramebuffers(1, &s->fbo);
    if (s->tex) glDeleteTextures(1, &s->tex);
    memset(s, 0, sizeof *s);
}

void rn_shadow_matrices(rn_shadow *s, const float sun[3], const double c[3])
{
    /* f: the light's direction of travel; r, u: the map's axes */
    double f[3] = {-sun[0], -sun[1], -sun[2]};
    double r[3] = {f[1], -f[0], 0}; /* f x z */
    double rl = hypot(r[0], r[1]);
    if (rl < 1e-6) {
        r[0] = 1, r[1] = 0, rl = 1;
    }
    r[0] /= rl, r[1] /= rl;
    double u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
    const double *rows[3] = {r, u, f};
    const double scale[3] = {1 / s->radius, 1 / s->radius, 1 / DEPTH};
    float *m = s->view_proj, *t = s->lookup;
    memset(m, 0, 16 * sizeof *m);
    for (int i = 0; i < 3; i++) {
        double d = 0;
        for (int k = 0; k < 3; k++) {
            m[k * 4 + i] = (float)(rows[i][k] * scale[i]);
            d += rows[i][k] * c[k];
        }
        m[12 + i] = (float)(-d * scale[i]);
    }
    m[15] = 1;
    /* [-1, 1] to [0, 1] */
    for (int col = 0; col < 4; col++)
        for (int i = 0; i < 3; i++)
            t[col * 4 + i] = 0.5f * m[col * 4 + i] + 0.5f * m[col * 4 + 3];
    for (int col = 0; col < 4; col++)
        t[col * 4 + 3] = m[col * 4 + 3];
}
