# gaze: what the driver looks at: areas of interest in the car (the vehicle file's
# gaze_areas) and the hit test of a gaze ray against them and the world's vehicles and
# signs (pure; docs/instruments.md).
gaze_USES := base
gaze_PKGS := libcjson
gaze_PURE := yes
