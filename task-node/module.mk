# bin/task-node: secondary tasks in a session (the Detection Response Task's stimuli).
task-node_PKGS :=
