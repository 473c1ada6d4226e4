/* materials: the detail textures uploaded (materials.h). */
#include "materials.h"

#include <stdlib.h>

#include "sim_texture.h"

GLuint rn_materials_texture(float anisotropy, bool software, float *anisotropy_used)
{
    const int n = RN_MAT_SIZE, layers = RN_MAT_COUNT - 1, levels = sim_texture_levels(n);
    size_t chain = sim_texture_chain_bytes(n);
    unsigned char *px = malloc(chain * layers);
    if (!px)
        return 0;
    for (int m = 0; m < layers; m++)
        if (sim_texture_make((sim_texture_kind)m, n, px + chain * m, NULL)) {
            free(px);
            return 0;
        }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D_ARRAY, t);
    /* each level of every layer, as sim_texture made it (box averages, not the driver's) */
    size_t off = 0;
    for (int l = 0, s = n; l < levels; l++, s /= 2) {
        glTexImage3D(GL_TEXTURE_2D_ARRAY, l, GL_RGBA8, s, s, layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        for (int m = 0; m < layers; m++)
            glTexSubImage3D(GL_TEXTURE_2D_ARRAY, l, 0, 0, m, s, s, 1, GL_RGBA, GL_UNSIGNED_BYTE,
                            px + chain * m + off);
        off += (size_t)s * s * 4;
    }
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, levels - 1);
    /* a software renderer samples one mip level, not two (llvmpipe: 5 % of low's frame
     * rural, the detail measure alike, docs/performance.md) */
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER,
                    software ? GL_LINEAR_MIPMAP_NEAREST : GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_REPEAT);
    /* at grazing angles the ground's footprint is long and thin: without anisotropic
     * filtering the mip level follows its long side and the detail beyond 20 m blurs */
    float used = 1;
    if (anisotropy > 1 && (epoxy_has_gl_extension("GL_EXT_texture_filter_anisotropic") ||
                           epoxy_has_gl_extension("GL_ARB_texture_filter_anisotropic"))) {
        float most = 1;
        glGetFloatv(GL_MAX_TEXTURE_MAX_ANISOTROPY_EXT, &most);
        used = anisotropy < most ? anisotropy : most;
        glTexParameterf(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_ANISOTROPY_EXT, used);
    }
    if (anisotropy_used)
        *anisotropy_used = used;
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    free(px);
    return t;
}
