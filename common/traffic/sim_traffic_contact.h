/* sim_traffic_contact: which vehicles the ego touches, with the boxes traffic uses.
 *
 * Every vehicle is an oriented rectangle in the ground plane: centre, heading, length
 * and width (the agent's model size, the ego's size given to sim_traffic_set_ego).
 * Two rectangles touch when no separating axis exists among their four edge normals
 * (the separating-axis test); `margin` grows both by that much on every side, so that
 * a physics model that stops the ego at the other body's surface (its collision boxes
 * push back) still counts as touching. Pure, no allocation. */
#ifndef SIM_TRAFFIC_CONTACT_H
#define SIM_TRAFFIC_CONTACT_H

#include <stdbool.h>

#include "sim_traffic.h"

typedef struct sim_obb2 {
    double x, y, heading, length, width; /* centre (m), rad CCW from +x, m, m */
} sim_obb2;

/* Whether the two rectangles, each grown by margin (m) on every side, overlap. */
bool sim_obb2_touch(const sim_obb2 *a, const sim_obb2 *b, double margin);

/* The active agents whose boxes touch the ego's (grown by margin), by slot, into out
 * (at most max); returns how many. None without a valid ego. */
int sim_traffic_contacts(const sim_traffic *t, double margin, int *out, int max);

/* Relative speed of agent `slot` and the ego, m/s: |v_ego - v_agent| as vectors in the
 * ground plane (headings and speeds; a frozen agent stands). */
double sim_traffic_contact_speed(const sim_traffic *t, int slot);

#endif
