sound-node_PKGS := sdl2
