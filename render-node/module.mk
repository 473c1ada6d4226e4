render-node_PKGS := sdl2 epoxy cairo assimp
