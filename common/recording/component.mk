# recording: the recorder's logic, bus messages into drive-log rows (pairing ticks and
# states, events, sectors and tasks located in the scenario, replays back into
# vehicle.state) (docs/recording.md).
recording_USES := base drivelog protocol scenario world gaze vehicle
recording_PKGS := libcjson sqlite3
