# storyboard: OpenSCENARIO's storyboard as plain structs (sim_sb_model.h, filled by
# common/scenario's .xosc reader) and the engine that runs it on the traffic core's lane
# graph in lockstep: element states, triggers, private actions, conditions. Pure
# computation, no I/O (docs/openscenario.md).
storyboard_USES := base world traffic routing
storyboard_PKGS :=
storyboard_PURE := yes
