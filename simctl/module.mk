# simctl export --mcap writes MCAP files (common/mcap: zstd chunks, CRC-32 from zlib),
# --osi OSI traces (common/osi: protobuf-c)
simctl_PKGS := libzstd zlib libprotobuf-c
# (simctl video is bin/simctl-video: FFmpeg's libraries are loaded by it alone, not by
# every simctl command and module start)
