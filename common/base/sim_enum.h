/* sim_enum: the one way an enum's name is read, in files, messages and command lines:
 * a table of names indexed by the enum's value. Pure: no allocation, no I/O. */
#ifndef SIM_ENUM_H
#define SIM_ENUM_H

#include <stddef.h>

/* The index of s among the n names (n < 0: the table is NULL-terminated), -1 when s is
 * NULL or not among them. */
int sim_enum_parse(const char *s, const char *const *names, int n);
/* "a, b, c" into buf (cut to size): the names an enum accepts, for messages. */
const char *sim_enum_list(const char *const *names, int n, char *buf, size_t size);
/* n, or the length of a NULL-terminated table when n < 0. */
int sim_enum_count(const char *const *names, int n);

#endif
