# scenery: what stands beside the roads by rule (trees, bushes, delineator posts, guard
# rails, central barriers, distance markers, kerbs, buildings, street lights), placed from
# the road data and the scenario's seed, and the scenario's "scenery" section (pure,
# docs/scenery.md).
scenery_USES := base world
scenery_PKGS := libcjson
scenery_PURE := yes
