/* xosc_csv: `simctl export LOG --xosc-csv FILE`, a drive log's trajectories as an
 * OpenSCENARIO player logs them (esmini's --csv_logger), so that users can compare:
 * one row per entity and logged tick, columns time, entity, x, y, z, h, speed, the
 * position at OpenSCENARIO's reference point (the rear axle's centre) where the bus
 * carried it (traffic.state's pos_ref, traffic.ego's x_ref/y_ref), else the box's
 * centre. It reads the log's raw messages: a log recorded with --all (simctl run
 * --record-all). docs/openscenario.md, "Comparing with another player". */
#ifndef SIMCTL_XOSC_CSV_H
#define SIMCTL_XOSC_CSV_H

#include <stdio.h>

#include "sim_drivelog.h"
#include "sim_error.h"

#define XOSC_CSV_HEADER "time,entity,x,y,z,h,speed\r\n"

/* The rows of one logged message of topic traffic.state or traffic.ego at time t
 * (other topics: none); the number of rows written, or a negative SIM_E* code with err
 * naming the message. The ego has no z on the bus: an empty field. */
int xosc_csv_rows(FILE *f, double t, const char *topic, const char *line, size_t len, sim_error *err);
/* Writes the header and every row of the range to path (through a temporary file, so
 * a failed export leaves none); SIM_ENOTFOUND when the log holds no such message (not
 * recorded with --all). */
int xosc_csv_export(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, sim_error *err);

#endif
