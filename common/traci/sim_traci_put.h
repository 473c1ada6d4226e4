/* sim_traci_put: the writer's pieces shared by the files of common/traci (private to
 * the component): big-endian values appended to a sim_traci_buf, and a command's head
 * and length. */
#ifndef SIM_TRACI_PUT_H
#define SIM_TRACI_PUT_H

#include "sim_traci.h"

unsigned char *sim_traci_grow(sim_traci_buf *b, size_t n);
void sim_traci_put_u8(sim_traci_buf *b, int v);
void sim_traci_put_i32(sim_traci_buf *b, int32_t v);
void sim_traci_put_f64(sim_traci_buf *b, double v);
void sim_traci_put_str(sim_traci_buf *b, const char *s);
void sim_traci_put_typed_str(sim_traci_buf *b, const char *s);
void sim_traci_put_typed_i32(sim_traci_buf *b, int32_t v);
void sim_traci_put_typed_f64(sim_traci_buf *b, double v);
/* A command's head (length byte, id); sim_traci_cmd_end fills the length, widening it
 * past 255 bytes. Returns where the command begins. */
size_t sim_traci_cmd_begin(sim_traci_buf *b, int id);
void sim_traci_cmd_end(sim_traci_buf *b, size_t at);
/* The head of a get/set command: variable and object id. */
size_t sim_traci_var_cmd(sim_traci_buf *b, int cmd, int var, const char *obj);

#endif
