# base: errors, files, command lines, addresses, SHA-256 (docs/base.md).
# Used by every other component; uses none.
base_USES :=
base_PKGS := libcjson
