/* sim_controls: the driver's control state as carried by input.controls.
 *
 * One plain struct shared by the device mapping, the keyboard, the scripted driver
 * and the replay: the message's own struct (sim_msg_input.h encodes and decodes it,
 * docs/protocol.md, input.controls). */
#ifndef SIM_CONTROLS_H
#define SIM_CONTROLS_H

#include "sim_msg_input.h"

typedef sim_msg_input_controls sim_controls;

#endif
