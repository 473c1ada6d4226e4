# scenario: the files that describe a session: scenarios, height-map images, the roads
# they describe, vehicle parameter files read from disk (docs/scenario.md).
scenario_USES := base world vehicle
scenario_PKGS := libcjson libpng
