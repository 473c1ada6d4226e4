/* sim_xodr_write: a road network (sim_road.h) written as ASAM OpenDRIVE 1.4 text, so
 * that tools which read OpenDRIVE see the roads a JSON scenario describes: SUMO's
 * netconvert makes SUMO's network from it (traffic-node, docs/traffic.md "SUMO"), and
 * sim_xodr reads it back into the same network (docs/scenario.md, "Exporting roads").
 *
 * Written: the header; per road its link (road or junction, contact point), speed
 * limits as <type> records with <speed>, the planView (line, arc, spiral, poly3,
 * paramPoly3 with the exact start poses and lengths of the model), the elevation and
 * superelevation records of a road with its own profile, laneOffset, every lane
 * section with its lanes: type, predecessor/successor lane links (explicit, as the
 * lane graph sim_roadnet_lane_next follows them, so a reader that does not default a
 * missing link to the same id still joins the lanes), width records (a constant width
 * as one record), road marks and lane speed records (a lane without its own gets the
 * road's limits within its section: netconvert reads lane speeds, not the road type's,
 * so a lane read back keeps its limit past a gap between the road's limits); junctions
 * with their connections
 * and lane links. Numbers are written with 17 significant digits, so a reader gets
 * the model's doubles back exactly.
 *
 * Left out, because no reader of the export needs them: signs, roadside objects and
 * traffic-light heads (the scenario keeps them), surface zones, and heights of roads
 * that follow the terrain (SIM_ELEV_TERRAIN: written flat; SUMO's network is 2-D).
 *
 * Pure: no file is touched; the caller writes the text where it wants it.
 * Ownership: on success *out is a NUL-terminated string the caller frees with free(). */
#ifndef SIM_XODR_WRITE_H
#define SIM_XODR_WRITE_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_road.h"

/* net as OpenDRIVE text into *out (*len bytes, not counting the NUL); name goes into
 * the header's name attribute. SIM_EINVAL (naming the road) for a network the format
 * cannot hold (a road without geometry or lane sections), SIM_ENOMEM. */
int sim_xodr_write(const sim_roadnet *net, const char *name, char **out, size_t *len, sim_error *err);

#endif
