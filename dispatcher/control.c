/* control: the operator endpoint (nanomsg REQ/REP) of the dispatcher (see control.h).
 *
 * nanomsg has its own threads; its NN_RCVFD file descriptor becomes readable when a
 * request is waiting, so a uv_poll on it keeps everything on the hub's loop. */
#include "control.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

#include "sim_command.h"
#include "sim_net.h"

struct control {
    uv_poll_t poll;
    hub *h;
    int sock;
    char *token;
    void (*on_stop)(void *);
    void *user;
};

static void reply(control *c, cJSON *r)
{
    char *text = cJSON_PrintUnformatted(r);
    if (text) {
        nn_send(c->sock, text, strlen(text), NN_DONTWAIT);
        free(text);
    }
}

static void reply_error(control *c, const char *what)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddFalseToObject(r, "ok");
    cJSON_AddStringToObject(r, "error", what);
    reply(c, r);
    cJSON_Delete(r);
}

static void handle_request(control *c, const char *text, size_t len)
{
    cJSON *req;
    const char *cmd;
    sim_error err;
    if (sim_command_parse(text, len, &req, &cmd, &err) != SIM_OK) {
        reply_error(c, err.msg);
        return;
    }
    if (c->token) {
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(req, "token");
        if (!cJSON_IsString(tok) || !sim_net_token_equal(c->token, tok->valuestring)) {
            reply_error(c, tok ? "wrong token" : "this endpoint requires a \"token\"");
            cJSON_Delete(req);
            return;
        }
    }
    cJSON *ok = cJSON_CreateObject();
    cJSON_AddTrueToObject(ok, "ok");
    if (strcmp(cmd, "status") == 0) {
        cJSON_AddItemToObject(ok, "modules", hub_status(c->h));
        cJSON_AddItemToObject(ok, "errors", hub_errors(c->h));
        cJSON_AddItemToObject(ok, "backlogs", hub_backlogs(c->h));
        reply(c, ok);
    } else {
        /* cmd points into req, whose "cmd" item is removed before publishing. */
        char topic[80];
        snprintf(topic, sizeof topic, "control.%s", cmd);
        bool is_stop = strcmp(cmd, "stop") == 0;
        cJSON_DeleteItemFromObjectCaseSensitive(req, "token");
        cJSON_DeleteItemFromObjectCaseSensitive(req, "cmd");
        hub_publish(c->h, topic, req);
        reply(c, ok);
        if (is_stop && c->on_stop) c->on_stop(c->user);
    }
    cJSON_Delete(ok);
    cJSON_Delete(req);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    control *c = p->data;
    for (;;) {
        char *buf = NULL;
        int n = nn_recv(c->sock, &buf, NN_MSG, NN_DONTWAIT);
        if (n < 0) break;
        handle_request(c, buf, (size_t)n);
        nn_freemsg(buf);
    }
}

int control_open(uv_loop_t *loop, hub *h, const char *url, const char *token,
                 void (*on_stop)(void *), void *user, control **out, sim_error *err)
{
    *out = NULL;
    control *c = calloc(1, sizeof *c);
    if (!c) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    c->h = h;
    c->on_stop = on_stop;
    c->user = user;
    c->token = token ? strdup(token) : NULL;
    c->sock = nn_socket(AF_SP, NN_REP);
    if (c->sock < 0 || nn_bind(c->sock, url) < 0) {
        int e = nn_errno();
        if (c->sock >= 0) nn_close(c->sock);
        free(c->token);
        free(c);
        return sim_error_set(err, SIM_EIO, "--control %s: %s", url, nn_strerror(e));
    }
    int fd;
    size_t sz = sizeof fd;
    if (nn_getsockopt(c->sock, NN_SOL_SOCKET, NN_RCVFD, &fd, &sz) < 0) {
        nn_close(c->sock);
        free(c->token);
        free(c);
        return sim_error_set(err, SIM_EIO, "--control %s: no receive descriptor", url);
    }
    uv_poll_init(loop, &c->poll, fd);
    c->poll.data = c;
    uv_poll_start(&c->poll, UV_READABLE, on_poll);
    *out = c;
    return SIM_OK;
}

static void on_closed(uv_handle_t *hd)
{
    control *c = hd->data;
    nn_close(c->sock);
    free(c->token);
    free(c);
}

void control_close(control *c)
{
    if (!c) return;
    uv_poll_stop(&c->poll);
    uv_close((uv_handle_t *)&c->poll, on_closed);
}
