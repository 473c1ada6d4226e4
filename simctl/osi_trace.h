/* osi_trace: `simctl export LOG --osi FILE|DIR`, a drive log as an ASAM OSI trace
 * file (docs/osi.md, "Trace files"): one osi3.GroundTruth per logged tick of the host
 * vehicle (physics' vehicle.state, 100 Hz), each with the traffic.state of the same
 * tick (else the newest before it in the run), the scenario's traffic-light heads in
 * their newest signal.state and its environment, in OSI's binary .osi format: every
 * message preceded by its length as a 4-byte little-endian unsigned integer. It reads
 * the log's raw messages: a log recorded with --all (simctl run --record-all). */
#ifndef SIMCTL_OSI_TRACE_H
#define SIMCTL_OSI_TRACE_H

#include <stddef.h>

#include "sim_drivelog.h"
#include "sim_error.h"

/* Writes the trace of the range to path through path.part (a failed export leaves no
 * file). When dir is true, path is a directory and the file in it is named by OSI's
 * convention, <start>_gt_<osi>_<protobuf>_<frames>_<scenario>.osi; the written path
 * is copied to out (size n). vehicle: the host vehicle's file (NULL: the log's meta
 * vehicle_file, as given or under vehicles/, with the SHA-256 the recorder wrote).
 * The environment comes from the drive's scenario (scenario: that file; NULL: the
 * log's meta scenario_file, as given or under scenarios/, with its SHA-256); when
 * there is none, the messages go without it and note (size note_n) says why ("" when
 * it is there).
 * SIM_ENOTFOUND when the log holds no vehicle.state (not recorded with --all); a log
 * with more than one run needs range.run (OSI time must not go back). *frames: the
 * messages written. */
int osi_trace_export(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, bool dir,
                     const char *vehicle, const char *scenario, char *out, size_t n, char *note, size_t note_n,
                     size_t *frames, sim_error *err);

#endif
