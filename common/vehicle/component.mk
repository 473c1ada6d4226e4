# vehicle: rigid body, tyres, powertrain and the three vehicle models, pure (docs/vehicle.md).
vehicle_USES := base
vehicle_PKGS := libcjson
vehicle_PURE := yes
# headers only vehicle itself (and its unit tests) may include
vehicle_PRIVATE := sim_vehicle_impl.h
