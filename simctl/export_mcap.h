/* export_mcap: a drive log as one MCAP file (`simctl export LOG --mcap FILE`,
 * docs/drivelog.md "MCAP"): every sample on the channel "samples", every event on
 * "events", and in a log made with `recorder --all` every bus topic on a channel of its
 * own, all JSON with a JSON schema, log time = simulation time. */
#ifndef SIMCTL_EXPORT_MCAP_H
#define SIMCTL_EXPORT_MCAP_H

#include <stdbool.h>

#include "sim_drivelog.h"

/* Writes path (under a temporary name renamed at the end: a failed export leaves no
 * half file). compress: zstd chunks, else uncompressed. *n_messages: messages written. */
int export_mcap(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, bool compress,
                size_t *n_messages, sim_error *err);

#endif
