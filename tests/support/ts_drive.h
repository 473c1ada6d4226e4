/* ts_drive: reading what a headless session left behind (its drive log and CSV files),
 * shared by the session tests. Failures end the running cmocka test. */
#ifndef TS_DRIVE_H
#define TS_DRIVE_H

#include <stddef.h>
#include <sqlite3.h>

/* The first column of the first row of sql as a double; NAN when there is none. */
double ts_drive_query(sqlite3 *db, const char *sql);
/* The one .sqlite file under dir (not its -wal or -shm), into path. */
void ts_drive_find_log(const char *dir, char *path, size_t size);
/* Field `name` of the first data row of a CSV file, into out. */
void ts_drive_csv_field(const char *file, const char *name, char *out, size_t size);

#endif
