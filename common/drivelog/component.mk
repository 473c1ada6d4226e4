# drivelog: the drive-log format (schema, writer, reader, CSV) and the recorder's logic
# that turns bus messages into rows (docs/drivelog.md).
drivelog_USES := base world scenario protocol
drivelog_PKGS := libcjson sqlite3
# headers only drivelog itself (and its unit tests) may include
drivelog_PRIVATE := sim_drivelog_db.h
