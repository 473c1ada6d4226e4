/* ts_xodr: the shared fabriksgatan_traffic_lights.xodr (three heads, no <controller>s)
 * with OpenDRIVE controllers added, for the tests of sim_xodr_controllers.c and of the
 * lights they run in a traffic node (test_xodr_controllers, test_traffic_lights). */
#ifndef TS_XODR_H
#define TS_XODR_H

#define TS_FAB_LIGHTS "../shared/openscenario/xodr/fabriksgatan_traffic_lights.xodr"
/* "10": vehicle head 1; "11": pedestrian heads 2 and 3 and signal 99 (not in the file) */
#define TS_FAB_CONTROLLERS \
    "<controller id=\"10\" name=\"vehicles\" sequence=\"0\"><control signalId=\"1\" type=\"0\"/></controller>\n" \
    "<controller id=\"11\" name=\"walk\"><control signalId=\"2\" type=\"0\"/><control signalId=\"3\" type=\"0\"/>" \
    "<control signalId=\"99\" type=\"0\"/></controller>\n"
/* junction 4 lists 11 with sequence 2 and 10 with sequence 1 */
#define TS_FAB_JUNCTION_ENTRIES \
    "<controller id=\"11\" type=\"0\" sequence=\"2\"/><controller id=\"10\" type=\"0\" sequence=\"1\"/>"

/* The shared file with `controllers` before </OpenDRIVE> and `entries` first in its
 * junction 4, as a string the caller frees; NULL when the file cannot be read. */
char *ts_fab_with_controllers(const char *controllers, const char *entries);
/* The same written to path; 0, or -1 when it could not be made or written. */
int ts_fab_write(const char *path, const char *controllers, const char *entries);

#endif
