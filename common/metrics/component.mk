# metrics: lane-keeping metrics from samples, pure computation (docs/metrics.md).
metrics_USES := base
metrics_PKGS :=
metrics_PURE := yes
