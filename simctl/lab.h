/* lab: `simctl run --lab FILE` (docs/lab.md): the lab file read for simctl, which of
 * its hosts is this machine, and the ssh command line that starts a module on another
 * host under `simctl __remote` (remote.c). */
#ifndef SIMCTL_LAB_H
#define SIMCTL_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_lab.h"

/* Reads and checks FILE into *lab; 0, or -1 after printing what is wrong. */
int lab_load(const char *path, sim_lab *lab);
/* Whether h's address is one of this machine's own (its modules then start here,
 * without ssh). */
bool lab_host_is_here(const sim_lab_host *h);
/* The ssh command (args[0] is ssh itself, NULL-terminated, at most max entries) that
 * runs `simctl __remote HOST EXE ARGV...` in h's checkout; the remote shell's command
 * is built in cmd (cmdsize bytes), each word single-quoted. ssh_config: -F FILE, or
 * NULL. 0, or -1 when it does not fit. */
int lab_ssh_args(const sim_lab_host *h, const char *ssh_config, const char *exe, char *const *argv, int argc,
                 char **args, int max, char *cmd, size_t cmdsize);

#endif
