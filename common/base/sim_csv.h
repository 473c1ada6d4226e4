/* sim_csv: one CSV field written as RFC 4180 wants it: as is, or in double quotes (a
 * quote doubled) when it holds a comma, a quote, a CR or a LF. The one writer of the
 * drive-log export, the analysis' tables and simctl's listings. */
#ifndef SIM_CSV_H
#define SIM_CSV_H

#include <stdio.h>

/* Writes s (NULL: nothing, an empty field) to f. */
void sim_csv_field(FILE *f, const char *s);

#endif
