# protocol: line framing, the bus client, operator commands and
# their endpoint's client (sim_control, nanomsg) (docs/protocol.md).
protocol_USES := base
protocol_PKGS := libuv libcjson nanomsg
# headers only protocol itself (and its unit tests) may include
protocol_PRIVATE := sim_msg_fields.h
