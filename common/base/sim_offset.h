/* sim_offset: offset tables checked by the compiler. A table that reads and writes
 * struct members through offsetof (message fields, drive-log columns, vehicle
 * parameters) says what size each member has by the kind it gives it; SIM_OFFSETOF
 * refuses to compile an entry whose member is not that size (an int read as a double,
 * a buffer of another length), which would otherwise read past the member at run
 * time. Pure: no code, only constant expressions. */
#ifndef SIM_OFFSET_H
#define SIM_OFFSET_H

#include <stddef.h>

/* offsetof(T, member), with a static assertion that the member is size bytes. */
#define SIM_OFFSETOF(T, member, size)                                                              \
    (offsetof(T, member) +                                                                         \
     0 * sizeof(struct {                                                                           \
         _Static_assert(sizeof(((T *)0)->member) == (size), #T "." #member ": its table entry's kind " \
                                                              "does not fit the member's size");   \
         int ok_;                                                                                  \
     }))

#endif
