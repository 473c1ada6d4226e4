# motion: motion cueing for a motion base, pure (docs/motion.md): the classical washout
# with tilt coordination, a platform's geometry and limits from config/motion/*.json, the
# inverse kinematics of a Stewart platform (and of reduced 2- and 3-DOF bases), and the
# limiter that keeps every actuator within its length, velocity and acceleration.
motion_USES := base
motion_PKGS := libcjson
motion_PURE := yes
