# context: the context server's SQLite database: the scenario's POIs (R*Tree, FTS5),
# roads and signs, study tables from CSV, the in-car message stack and a key-value
# store (docs/context.md).
context_USES := base world scenario protocol
context_PKGS := sqlite3 libcjson
# headers only context itself (and its unit tests) may include
context_PRIVATE := sim_context_impl.h
