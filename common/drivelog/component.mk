# drivelog: the drive-log format: schema, writer, reader, CSV and MCAP export (docs/drivelog.md). What
# turns bus messages into its rows is common/recording's.
drivelog_USES := base mcap
drivelog_PKGS := libcjson sqlite3
# headers only drivelog itself (and its unit tests) may include
drivelog_PRIVATE := sim_drivelog_db.h
