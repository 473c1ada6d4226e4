/* cmd_codes: `simctl codes export|import|list` (docs/codes.md): a drive log's events as
 * ELAN tiers (.eaf linked to the drive's video) and a BORIS-style events CSV, and coded
 * tiers from an .eaf back into the log's codes table. */
#ifndef SIMCTL_CMD_CODES_H
#define SIMCTL_CMD_CODES_H

int simctl_cmd_codes(int argc, char **argv);

#endif
