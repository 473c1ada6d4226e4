# model: 3D models (glTF 2.0 and what else Debian's libassimp reads) loaded into plain
# vertex and index arrays with named parts (docs/model.md).
model_USES := base
model_PKGS := assimp
