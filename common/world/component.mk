# world: the terrain surface and the road geometry, pure computation (docs/world.md).
world_USES := base
world_PKGS :=
world_PURE := yes
# headers only world itself (and its unit tests) may include
world_PRIVATE := sim_road_impl.h
