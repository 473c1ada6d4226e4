/* libFuzzer target: lab files (sim_lab_parse) on arbitrary bytes; a lab that parses
 * has every host, module and channel reference inside its tables and names fit for a
 * command line (no leading '-'). */
#include <stddef.h>
#include <stdint.h>

#include "sim_lab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sim_lab lab;
    sim_error err;
    if (sim_lab_parse((const char *)data, size, "fuzz.json", &lab, &err) != SIM_OK) return 0;
    if (lab.n_hosts < 1 || lab.n_hosts > SIM_LAB_HOSTS_MAX) __builtin_trap();
    if (lab.dispatcher_host < 0 || lab.dispatcher_host >= lab.n_hosts) __builtin_trap();
    for (int m = 0; m < SIM_MODULE_COUNT; m++)
        if (lab.module_host[m] < 0 || lab.module_host[m] >= lab.n_hosts) __builtin_trap();
    for (int i = 0; i < lab.n_hosts; i++)
        if (lab.hosts[i].name[0] == '-' || lab.hosts[i].address[0] == '-' || lab.hosts[i].user[0] == '-')
            __builtin_trap();
    for (int i = 0; i < lab.n_channels; i++)
        if (lab.channels[i].host < 0 || lab.channels[i].host >= lab.n_hosts) __builtin_trap();
    return 0;
}
