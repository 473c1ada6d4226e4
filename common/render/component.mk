# render: what the picture is computed from, pure (docs/render.md): camera and views,
# frustum culling, terrain LOD selection and crack stitching, pose interpolation,
# the procedural detail textures and their mipmaps.
render_USES := base
render_PKGS :=
render_PURE := yes
