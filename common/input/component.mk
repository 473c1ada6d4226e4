# input: driver controls, input mapping, keyboard, force feedback, scripted driver (docs/input.md).
input_USES := base protocol automation
input_PKGS := libcjson
