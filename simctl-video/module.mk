# simctl-video (`simctl video`) encodes with Debian's FFmpeg libraries (common/video)
simctl-video_PKGS := libavformat libavcodec libswscale libavutil
