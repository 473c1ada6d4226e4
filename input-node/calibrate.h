/* calibrate: `input-node --calibrate`, an interactive walk through a wheel's set-up.
 *
 * Asks the person at the wheel to centre it, turn it fully left and right, press
 * each pedal and each button in turn, reads which axis or button moved, and writes
 * the mapping file (docs/input.md) for that device, matched by its GUID and name. */
#ifndef INPUT_NODE_CALIBRATE_H
#define INPUT_NODE_CALIBRATE_H

/* Called after prompt number k (from 1) is shown; tests move a virtual wheel here. */
typedef void (*in_calibrate_hook)(int k, void *user);

/* Runs on stdin/stdout with SDL's joystick subsystem initialised; returns the
 * process exit status (0 written, 1 failed, 2 usage). hook may be NULL. */
int in_calibrate_run(const char *out_path, int device_index, in_calibrate_hook hook, void *user);

#endif
