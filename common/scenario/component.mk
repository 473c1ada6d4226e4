# scenario: the files that describe a session: scenarios, height-map images, the roads
# they describe (the project's JSON or OpenDRIVE), vehicle parameter files read from
# disk (docs/scenario.md).
scenario_USES := base world vehicle
scenario_PKGS := libcjson libpng libxml-2.0
