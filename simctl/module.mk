# simctl export --mcap writes MCAP files (common/mcap: zstd chunks, CRC-32 from zlib)
simctl_PKGS := libzstd zlib
