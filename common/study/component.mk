# study: a study file (conditions, participants, design, questionnaires), the plan of
# every participant's drives (Williams, latin square, seeded random, explicit), the
# standard questionnaires as data with their scoring, and a condition's scenario
# overlay: pure computation on text and numbers (docs/study.md).
study_USES := base
study_PKGS := libcjson
study_PURE := yes
