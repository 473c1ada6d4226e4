/* rain: drops as streaks (rain.h). */
#include "rain.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define BOX 30.0     /* m: the drops fill a box this wide around the eye, */
#define TALL 12.0    /* this tall, */
#define FALL 9.0     /* falling at a raindrop's terminal speed, m/s */
#define STREAK 0.45  /* m: the distance a drop falls while the eye integrates it */

static double unit(uint32_t h)
{
    h = (h ^ (h >> 16)) * 0x7feb352du;
    h = (h ^ (h >> 15)) * 0x846ca68bu;
    return (h ^ (h >> 16)) / 4294967296.0;
}

void rn_rain_init(rn_rain *r)
{
    memset(r, 0, sizeof *r);
    glGenVertexArrays(1, &r->vao);
    glBindVertexArray(r->vao);
    glGenBuffers(1, &r->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof r->v, NULL, GL_STREAM_DRAW);
    for (int a = 0; a < 3; a++) {
        glEnableVertexAttribArray((GLuint)a);
        glVertexAttribPointer((GLuint)a, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_vertex), (void *)(uintptr_t)(a * 12));
    }
    glBindVertexArray(0);
}

void rn_rain_free(rn_rain *r)
{
    if (r->vao) glDeleteVertexArrays(1, &r->vao);
    if (r->vbo) glDeleteBuffers(1, &r->vbo);
    memset(r, 0, sizeof *r);
}

/* x wrapped into the box around e: the drop keeps its world place while in the box */
static double wrap(double x, double e)
{
    return e - BOX / 2 + fmod(fmod(x - (e - BOX / 2), BOX) + BOX, BOX);
}

void rn_rain_draw(rn_rain *r, const double eye[3], double clock, const float rgb[3])
{
    for (int i = 0; i < RN_RAIN_DROPS; i++) {
        double x = wrap(unit(3u * i + 1) * BOX, eye[0]), y = wrap(unit(3u * i + 2) * BOX, eye[1]);
        double z = eye[2] + TALL / 2 - fmod(unit(3u * i + 3) * TALL + clock * FALL, TALL);
        gfx_vertex *a = &r->v[2 * i], *b = a + 1;
        a->pos[0] = b->pos[0] = (float)x;
        a->pos[1] = b->pos[1] = (float)y;
        a->pos[2] = (float)z;
        b->pos[2] = (float)(z + STREAK);
        for (int k = 0; k < 3; k++) {
            a->normal[k] = b->normal[k] = k == 2;
            a->color[k] = b->color[k] = rgb[k];
        }
    }
    glBindVertexArray(r->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof r->v, r->v);
    glDrawArrays(GL_LINES, 0, 2 * RN_RAIN_DROPS);
    glBindVertexArray(0);
}
