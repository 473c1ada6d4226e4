/* sim_road_impl: what the sim_road_*.c files share and nobody else needs. */
#ifndef SIM_ROAD_IMPL_H
#define SIM_ROAD_IMPL_H

#include "sim_road.h"

/* Pieces are cut into chunks short enough for the chord-started Newton iteration
 * (heading change at most 0.5 rad) and for a tight spatial index. */
#define SIM_CHUNK_MAX 25.0

double sim_chunk_length(const sim_geom *g);
/* |d position / d ds| (1 except for paramPoly3, whose parameter is not arc length). */
double sim_geom_speed(const sim_geom *g, double ds);
/* Index of the piece holding s. */
int sim_road_geom_at(const sim_road *r, double s);
/* Reference-line point at s moved horizontally by h (m, left positive). */
void sim_road_ref_point(const sim_road *r, double s, double h, double *x, double *y, double *hdg);
/* Horizontal offset of t at s (t cos(superelevation)), and back. */
double sim_road_t_to_h(const sim_road *r, double s, double t);
double sim_road_h_to_t(const sim_road *r, double s, double h);
void sim_roadnet_index_free(struct sim_roadnet_index *ix);

#endif
