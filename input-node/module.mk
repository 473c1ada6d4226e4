input-node_PKGS := sdl2
