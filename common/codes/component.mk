# codes: behaviour codes in and out (docs/codes.md): ELAN .eaf (EAF 3.0) written from a
# list of coded intervals and read back with libxml2 (no network, no entities), and the
# same intervals as a BORIS-style tabular events CSV. Pure: strings and FILE streams in,
# the caller opens files and the drive log.
codes_USES := base
codes_PKGS := libxml-2.0
