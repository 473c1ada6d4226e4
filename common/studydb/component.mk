# studydb: the study database, one SQLite file per study: participants, planned and
# actual orders, drive attempts with their logs' SHA-256, questionnaire answers,
# operator notes; every write committed durably before it returns (docs/study.md).
studydb_USES := base study
studydb_PKGS := sqlite3 libcjson
