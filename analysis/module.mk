# bin/analysis: metrics, cairo plots and HTML reports of drive logs.
# zlib: the figures' PNG writer; fontconfig: its caches are released at exit (both come
# with libcairo2-dev).
analysis_PKGS := cairo zlib fontconfig
