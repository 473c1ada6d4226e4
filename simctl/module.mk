# simctl export --mcap writes MCAP files (common/mcap: zstd chunks, CRC-32 from zlib),
# --osi OSI traces (common/osi: protobuf-c)
simctl_PKGS := libzstd zlib libprotobuf-c
# simctl video encodes with Debian's FFmpeg libraries (common/video)
simctl_PKGS += libavformat libavcodec libswscale libavutil
