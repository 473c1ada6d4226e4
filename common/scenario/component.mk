# scenario: scenario files, height-map images, the roads they describe (docs/scenario.md).
scenario_USES := base world traffic
scenario_PKGS := libcjson libpng
