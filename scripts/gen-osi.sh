#!/bin/sh
# Makes the C of common/osi's .proto files with protoc-c (called by the Makefile; the
# output lives in the build directory, never checked in; docs/osi.md).
#   sh scripts/gen-osi.sh OUTDIR PROTO...
# OSI's MovingObject has a field named "base", which protoc-c's C structs already use
# for their ProtobufCMessage header; protoc-c's own message option base_field_name
# (protobuf-c/protobuf-c.proto) renames that header. The checked-in .proto files stay
# plain OSI: the option is added to copies under OUTDIR/proto. protobuf-c.proto
# imports google/protobuf/descriptor.proto, which Debian ships only in the large
# libprotobuf-dev; protoc-c only parses it (it makes no code for an import), so a stub
# declaring the three option messages it extends stands in for it.
set -eu
out=$1
shift
mkdir -p "$out/proto/google/protobuf"
cat >"$out/proto/google/protobuf/descriptor.proto" <<'STUB'
syntax = "proto2";
package google.protobuf;
message FileOptions { extensions 1000 to max; }
message MessageOptions { extensions 1000 to max; }
message FieldOptions { extensions 1000 to max; }
STUB
names=""
for p in "$@"; do
    n=$(basename "$p")
    # after "package osi3;" the import; after every "message X" line's "{" the option
    sed -e 's|^package osi3;$|package osi3;\nimport "protobuf-c/protobuf-c.proto";|' \
        -e '/^[[:space:]]*message [A-Za-z0-9_]*[[:space:]]*$/{n;s|{|{ option (pb_c_msg).base_field_name = "pbc_base";|}' \
        "$p" >"$out/proto/$n"
    names="$names $n"
done
# shellcheck disable=SC2086  # the file names, one word each
(cd "$out/proto" && protoc-c -I. -I/usr/include --c_out=.. $names)
