/* sim_control: a request to the operator endpoint over nanomsg REQ (sim_control.h). */
#include "sim_control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

char *sim_control_request(const char *url, const char *request, int timeout_ms, char *err, size_t err_size)
{
    int s = nn_socket(AF_SP, NN_REQ);
    if (s < 0) {
        snprintf(err, err_size, "nanomsg: %s", nn_strerror(nn_errno()));
        return NULL;
    }
    nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    nn_setsockopt(s, NN_SOL_SOCKET, NN_SNDTIMEO, &timeout_ms, sizeof timeout_ms);
    char *out = NULL;
    if (nn_connect(s, url) < 0 || nn_send(s, request, strlen(request), 0) < 0) {
        snprintf(err, err_size, "%s: %s", url, nn_strerror(nn_errno()));
    } else {
        char *buf = NULL;
        int n = nn_recv(s, &buf, NN_MSG, 0);
        if (n < 0) {
            snprintf(err, err_size, "no reply from %s within %d ms (is the dispatcher running?)", url, timeout_ms);
        } else {
            out = malloc((size_t)n + 1);
            if (out) {
                memcpy(out, buf, (size_t)n);
                out[n] = '\0';
            } else {
                snprintf(err, err_size, "out of memory for the %d-byte reply", n);
            }
            nn_freemsg(buf);
        }
    }
    nn_close(s);
    return out;
}
