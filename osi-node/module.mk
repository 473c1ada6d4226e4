# osi-node encodes ASAM OSI GroundTruth with protobuf-c (common/osi, docs/osi.md)
osi-node_PKGS := libprotobuf-c
