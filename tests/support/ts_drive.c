/* ts_drive: see ts_drive.h. */
#include "ts_drive.h"

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

double ts_drive_query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return NAN;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The one .sqlite file under dir, into path. */
void ts_drive_find_log(const char *dir, char *path, size_t size)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    path[0] = '\0';
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".sqlite") && !strstr(e->d_name, "-wal") && !strstr(e->d_name, "-shm"))
            snprintf(path, size, "%s/%s", dir, e->d_name);
    closedir(d);
    assert_true(path[0] != '\0');
}

/* Field `name` of the first row of a CSV file. */
void ts_drive_csv_field(const char *file, const char *name, char *out, size_t size)
{
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    static char head[8192], row[8192];
    assert_non_null(fgets(head, sizeof head, f));
    assert_non_null(fgets(row, sizeof row, f));
    fclose(f);
    int col = -1, k = 0;
    for (char *p = head, *tok; (tok = strsep(&p, ",\n")); k++)
        if (strcmp(tok, name) == 0) col = k;
    assert_true(col >= 0);
    k = 0;
    out[0] = '\0';
    for (char *p = row, *tok; (tok = strsep(&p, ",\n")); k++)
        if (k == col) snprintf(out, size, "%s", tok);
}
