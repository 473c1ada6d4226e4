# tasks: the standard secondary and reference tasks: the DRT's stimulus schedule and
# scripted responses, the Lane Change Test's track (pure, docs/tasks.md).
tasks_USES := base metrics
tasks_PKGS := libcjson
tasks_PURE := yes
