# traci: SUMO's TraCI protocol as bytes, written and read, without a socket (pure;
# docs/traci.md). traffic-node's SUMO co-simulation talks through it.
traci_USES := base
traci_PKGS :=
