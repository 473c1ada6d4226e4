# bin/analysis: metrics, cairo plots and HTML reports of drive logs.
# zlib: the figures' PNG writer (libcairo2-dev pulls zlib1g-dev in).
analysis_PKGS := cairo zlib
