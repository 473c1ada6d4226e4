# world: the terrain surface and the road geometry, pure computation (docs/world.md).
world_USES := base
world_PKGS :=
world_PURE := yes
