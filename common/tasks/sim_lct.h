/* sim_lct: Lane Change Test tracks (ISO 26022:2010), pure.
 *
 * A track is a straight road of three lanes (lane ids -1 left, -2 middle, -3 right,
 * traffic in the direction of s) driven at a constant 60 km/h. Signs on both sides tell
 * the driver which lane to take; a track holds 18 lane changes, each of the six kinds
 * (left to middle, left to right, middle to left, ...) three times, in an order fixed by
 * the track number; signs are a seeded 140..160 m apart. The basic (normative) model of
 * the ideal path changes lane over lc_length starting lc_before metres before each sign
 * (docs/tasks.md gives the sources and what could not be checked against the standard
 * text). sim_lct_track_make fills the plain description; simctl lct-track writes it as
 * a scenario file (simctl/lct_scenario.c).
 *
 * Ownership: plain structs; the cJSON object returned belongs to the caller. */
#ifndef SIM_LCT_H
#define SIM_LCT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_error.h"

#define SIM_LCT_CHANGES 18
#define SIM_LCT_LANES 3

typedef struct sim_lct_params {
    int track;               /* 1.. : which sign order (and spacing) */
    double length;           /* m (3000) */
    double lane_width;       /* m (3.85) */
    double speed_kmh;        /* 60 */
    double first_sign;       /* s of the first sign, m (150) */
    double spacing_min, spacing_max; /* between signs, m (140, 160) */
    double visibility;       /* m before a sign its arrow becomes readable (40) */
    double lc_before;        /* normative model: the change starts this far before the sign (30) */
    double lc_length;        /* ... and takes this long along the road (20) */
    double tube_half_width;  /* m, for the deviation events of the analysis (1) */
} sim_lct_params;

typedef struct sim_lct_change {
    double sign_s;           /* m */
    int from_lane, to_lane;  /* 1 left, 2 middle, 3 right */
} sim_lct_change;

typedef struct sim_lct_track {
    int start_lane;          /* 1..3 */
    sim_lct_change change[SIM_LCT_CHANGES];
} sim_lct_track;

void sim_lct_params_init(sim_lct_params *p);
/* The track of p->track; SIM_EINVAL naming the parameter that makes it impossible
 * (a track longer than the road, a change not inside the road, ...). */
int sim_lct_track_make(const sim_lct_params *p, sim_lct_track *out, sim_error *err);

/* What an LCT board shows. ISO 26022's boards stand along the whole track but stay blank
 * until the driver is within the legibility distance (40 m), then show the lanes; see
 * docs/tasks.md for the sources. */
typedef enum { SIM_LCT_BOARD_BLANK, SIM_LCT_BOARD_LANES } sim_lct_board;

/* The board's face for a driver ahead_m metres before it along the road (negative once
 * passed): the lanes from ahead_m <= legible_m on, blank before (and for a distance that
 * is not a number). legible_m <= 0 means no blank phase: always the lanes. */
sim_lct_board sim_lct_board_at(double ahead_m, double legible_m);

/* How far the board at (bx, by) lies ahead of a driver at (vx, vy) travelling in the
 * direction (dx, dy) (not necessarily a unit vector; 0 when it has no length): the
 * distance along the road on a straight track, as the standard measures it. */
double sim_lct_board_ahead(double bx, double by, double vx, double vy, double dx, double dy);

#endif
