/* collide: the car against the world's static objects at every step, and the
 * vehicle.collision events that come of it: one per contact, when the body begins to
 * touch an object it has not touched for PN_COLLIDE_APART steps (the response pushes
 * the body just clear, so a car leaning on a tree touches it every other step: that
 * is one contact). */
#ifndef PHYSICS_COLLIDE_H
#define PHYSICS_COLLIDE_H

#include "sim_msg_collision.h"
#include "world.h"

#define PN_COLLIDE_TOUCH 8   /* objects remembered as touched in the last step */
#define PN_COLLIDE_PENDING 8 /* events kept for the next tick (more are dropped) */
#define PN_COLLIDE_APART 250 /* steps without touch that end a contact (0.25 s at 1 kHz) */

typedef struct pn_collide {
    int touching[PN_COLLIDE_TOUCH]; /* object indices in contact */
    int apart[PN_COLLIDE_TOUCH];    /* steps since each last touched */
    int n_touching;
    sim_msg_vehicle_collision pending[PN_COLLIDE_PENDING];
    int n_pending;
} pn_collide;

/* Forgets every contact and pending event (a start or restart). */
void pn_collide_reset(pn_collide *c);
/* After a step: resolves the car's contacts with the world's objects (changing the
 * car) and queues an event for each new one. */
void pn_collide_step(pn_collide *c, sim_vehicle *car, const pn_world *w);

#endif
