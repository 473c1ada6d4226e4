# video: drive videos as files (docs/video.md): a writer that encodes RGB frames with
# Debian's FFmpeg libraries (H.264 through libx264 in MP4, VP9 through libvpx in WebM),
# a reader that decodes a video file back to RGB frames, and the frame times of a video
# on a drive log's time base (sim_video_time.c, no FFmpeg).
video_USES := base
video_PKGS := libavformat libavcodec libswscale libavutil
