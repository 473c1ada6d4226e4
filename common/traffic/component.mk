# traffic: surrounding traffic on a lane graph of its own (agents, zone model and
# IDM/MOBIL, junction priority, triggers, ambient traffic, the ego's lead vehicle), pure
# computation (docs/traffic.md). sim_lanegraph_road.c is the one file that reads the road model.
traffic_USES := base world
traffic_PKGS :=
traffic_PURE := yes
# headers only traffic itself (and its unit tests) may include
traffic_PRIVATE := sim_traffic_impl.h
