# routing: the route graph, A* routes with manoeuvres, guidance along a route, and the
# adapter that builds the graph from the road network; pure computation (docs/routing.md).
routing_USES := base world
routing_PKGS :=
routing_PURE := yes
