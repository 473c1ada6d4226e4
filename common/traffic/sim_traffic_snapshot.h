/* sim_traffic_snapshot: the moving state of a traffic world as bytes, so that a
 * restarted traffic node continues from where its predecessor was (docs/traffic.md,
 * "Restart with state"). Pure: the caller does the file I/O.
 *
 * The snapshot holds the agents, the route pool, the triggers' fired flags, the random
 * state and the clock, behind a header that names the world it fits (capacity, lanes,
 * triggers) and an FNV-1a hash of the bytes. It is read back only into a world set up
 * from the same scenario (sim_traffic_setup_start): anything else is refused with an
 * error saying what differs. Same build, same machine: it is not an exchange format. */
#ifndef SIM_TRAFFIC_SNAPSHOT_H
#define SIM_TRAFFIC_SNAPSHOT_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_traffic.h"

/* Bytes sim_traffic_snapshot_write needs for t now. */
size_t sim_traffic_snapshot_size(const sim_traffic *t);
/* Writes the snapshot into buf (sim_traffic_snapshot_size bytes); returns the size. */
size_t sim_traffic_snapshot_write(const sim_traffic *t, void *buf, size_t cap);
/* Puts the snapshot's state into t (a world freshly set up from the same scenario).
 * SIM_OK, or SIM_EINVAL with err saying why (t is unchanged then). */
int sim_traffic_snapshot_read(sim_traffic *t, const void *buf, size_t len, sim_error *err);

#endif
