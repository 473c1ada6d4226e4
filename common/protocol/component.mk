# protocol: line framing, the bus client, operator commands (docs/protocol.md).
protocol_USES := base
protocol_PKGS := libuv libcjson
# headers only protocol itself (and its unit tests) may include
protocol_PRIVATE := sim_msg_fields.h
