/* collide: the car against the world's static objects at every step, and the
 * vehicle.collision events that come of it: one per contact, when the body begins to
 * touch an object it has not touched for PN_COLLIDE_APART_S (the response pushes the
 * body just clear, so a car leaning on a tree touches it every other step, and a car
 * bounced back that drives on into the tree hits it again within a second or two:
 * that is one collision). Guard rails and barriers are chains of segments: a car
 * scraping along one touches segment after segment, and a rail segment touched while
 * another is in contact is the same collision. */
#ifndef PHYSICS_COLLIDE_H
#define PHYSICS_COLLIDE_H

#include "sim_msg_collision.h"
#include "world.h"

#define PN_COLLIDE_TOUCH 32  /* objects remembered in contact (the oldest goes first) */
#define PN_COLLIDE_PENDING 8 /* events kept for the next tick (more are dropped) */
#define PN_COLLIDE_APART_S 5.0 /* s without touch that end a contact */

typedef struct pn_collide {
    int touching[PN_COLLIDE_TOUCH]; /* object indices in contact */
    int apart[PN_COLLIDE_TOUCH];    /* steps since each last touched */
    int n_touching;
    int apart_steps;                /* PN_COLLIDE_APART_S in steps */
    sim_msg_vehicle_collision pending[PN_COLLIDE_PENDING];
    int n_pending;
} pn_collide;

/* Forgets every contact and pending event (a start or restart); dt: the step (s). */
void pn_collide_reset(pn_collide *c, double dt);
/* After a step: resolves the car's contacts with the world's objects (changing the
 * car) and queues an event for each new one. */
void pn_collide_step(pn_collide *c, sim_vehicle *car, const pn_world *w);

#endif
