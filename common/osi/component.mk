# osi: the world as ASAM OSI 3.x messages (docs/osi.md): osi3.GroundTruth encoded with
# protobuf-c from the project's subset of the OSI .proto files (proto/, the C made from
# them at build time into build/gen/osi by protoc-c: the Makefile's "OSI" rules).
osi_USES := base protocol vehicle world
osi_PKGS := libprotobuf-c libcjson
