input-node_PKGS := sdl2 cairo
