# protocol: line framing, the bus client, operator commands (docs/protocol.md).
protocol_USES := base
protocol_PKGS := libuv libcjson
