# mcap: the MCAP container (https://mcap.dev/spec, major version 0) as a writer:
# schemas, channels, messages in zstd-compressed or plain chunks with their message
# indexes, and the summary a reader seeks by (docs/mcap.md).
mcap_USES := base
mcap_PKGS := libzstd zlib
