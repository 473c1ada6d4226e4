/* control: the operator endpoint (nanomsg REQ/REP) of the dispatcher (see control.h).
 *
 * nanomsg has its own threads; its NN_RCVFD file descriptor becomes readable when a
 * request is waiting, so a uv_poll on it keeps everything on the hub's loop.
 *
 * A command is published as control.<cmd> with a fresh "id"; the reply waits for the
 * control.ack answers to that id: until every module that declared the command in its
 * hello ("acts_on") has answered, or CONTROL_ACK_WAIT_MS have passed. One command is
 * in flight at a time: the poll is stopped meanwhile, so later requests wait in
 * nanomsg's queue (a REP socket answers requests in order). */
#include "control.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

#include "sim_command.h"
#include "sim_net.h"

#define MAX_WAITED 64

struct control {
    uv_poll_t poll;
    uv_timer_t timer;
    hub *h;
    int sock;
    char *token;
    void (*on_stop)(void *);
    void *user;
    int ack_wait_ms;
    uint64_t next_id;
    /* the command in flight */
    bool pending;
    char cmd[32];
    char id[24];
    char waited[MAX_WAITED][HUB_NAME_CAP]; /* declared acts_on at publication */
    bool answered[MAX_WAITED];
    size_t n_waited;
    cJSON *acted, *refused;                /* names; {module, error} objects */
    int open_handles;
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

static void on_poll(uv_poll_t *p, int status, int events);

/* Replies to the command in flight with who acted and who refused, then takes the
 * next request. */
static void finish_pending(control *c)
{
    uv_timer_stop(&c->timer);
    c->pending = false;
    cJSON *r = cJSON_CreateObject();
    int n_acted = cJSON_GetArraySize(c->acted), n_refused = cJSON_GetArraySize(c->refused);
    cJSON *silent = cJSON_CreateArray();
    for (size_t i = 0; i < c->n_waited; i++)
        if (!c->answered[i]) cJSON_AddItemToArray(silent, cJSON_CreateString(c->waited[i]));
    int n_silent = cJSON_GetArraySize(silent);
    bool ok = n_acted > 0 && n_refused == 0 && n_silent == 0;
    cJSON_AddBoolToObject(r, "ok", ok);
    cJSON_AddStringToObject(r, "cmd", c->cmd);
    cJSON_AddNumberToObject(r, "id", strtod(c->id, NULL));
    cJSON_AddItemToObject(r, "acted", c->acted);
    cJSON_AddItemToObject(r, "refused", c->refused);
    cJSON_AddItemToObject(r, "silent", silent);
    if (!ok) {
        /* One sentence for simple clients; the arrays say the same in parts. */
        char why[1024];
        size_t used = 0;
        why[0] = '\0';
        const cJSON *it;
        cJSON_ArrayForEach(it, c->refused) {
            used += (size_t)snprintf(why + used, sizeof why - used, "%srefused by %s: %s", used ? "; " : "",
                                     cJSON_GetObjectItem(it, "module")->valuestring,
                                     cJSON_GetObjectItem(it, "error")->valuestring);
            if (used >= sizeof why) break;
        }
        cJSON_ArrayForEach(it, silent) {
            if (used >= sizeof why) break;
            used += (size_t)snprintf(why + used, sizeof why - used, "%s%s did not answer within %d ms",
                                     used ? "; " : "", it->valuestring, c->ack_wait_ms);
        }
        if (!n_acted && !n_refused && !n_silent) snprintf(why, sizeof why, "no module acts on %s", c->cmd);
        cJSON_AddStringToObject(r, "error", why);
    }
    c->acted = c->refused = NULL;
    reply(c, r);
    cJSON_Delete(r);
    if (strcmp(c->cmd, "stop") == 0 && c->on_stop) c->on_stop(c->user);
    else uv_poll_start(&c->poll, UV_READABLE, on_poll);
}

static void on_ack_timeout(uv_timer_t *t)
{
    finish_pending(t->data);
}

static void on_ack(void *user, const char *src, const cJSON *msg)
{
    control *c = user;
    sim_command_ack a;
    sim_error err;
    if (!c->pending || sim_command_ack_decode(msg, &a, &err) != SIM_OK) return;
    if (strcmp(a.id, c->id) != 0 || strcmp(a.cmd, c->cmd) != 0) return; /* late, or a bus-sent command's */
    if (a.ok) {
        cJSON_AddItemToArray(c->acted, cJSON_CreateString(src));
    } else {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "module", src);
        cJSON_AddStringToObject(o, "error", a.error);
        cJSON_AddItemToArray(c->refused, o);
    }
    bool all = true;
    for (size_t i = 0; i < c->n_waited; i++) {
        if (strcmp(c->waited[i], src) == 0) c->answered[i] = true;
        all = all && c->answered[i];
    }
    /* With nobody declared, the whole wait is given to modules that act undeclared. */
    if (all && c->n_waited) finish_pending(c);
}

/* Publishes control.<cmd> with a new id and starts waiting for the answers. */
static void dispatch_command(control *c, const char *cmd, cJSON *req)
{
    snprintf(c->cmd, sizeof c->cmd, "%s", cmd);
    snprintf(c->id, sizeof c->id, "%llu", (unsigned long long)++c->next_id);
    char topic[80];
    snprintf(topic, sizeof topic, "control.%s", cmd);
    cJSON_DeleteItemFromObjectCaseSensitive(req, "token");
    cJSON_DeleteItemFromObjectCaseSensitive(req, "cmd");
    cJSON_DeleteItemFromObjectCaseSensitive(req, "id"); /* ours, not the client's */
    cJSON_AddNumberToObject(req, "id", (double)c->next_id);
    c->n_waited = hub_acting_on(c->h, c->cmd, c->waited, MAX_WAITED);
    memset(c->answered, 0, sizeof c->answered);
    c->acted = cJSON_CreateArray();
    c->refused = cJSON_CreateArray();
    c->pending = true;
    uv_poll_stop(&c->poll);
    uv_timer_start(&c->timer, on_ack_timeout, (uint64_t)c->ack_wait_ms, 0);
    hub_publish(c->h, topic, req);
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
    if (strcmp(cmd, "status") == 0) {
        cJSON *ok = cJSON_CreateObject();
        cJSON_AddTrueToObject(ok, "ok");
        cJSON_AddItemToObject(ok, "modules", hub_status(c->h));
        cJSON_AddItemToObject(ok, "errors", hub_errors(c->h));
        cJSON_AddItemToObject(ok, "backlogs", hub_backlogs(c->h));
        cJSON_AddItemToObject(ok, "bridges", hub_bridges(c->h));
        reply(c, ok);
        cJSON_Delete(ok);
    } else {
        char name[32]; /* cmd points into req, whose "cmd" item goes */
        snprintf(name, sizeof name, "%s", cmd);
        dispatch_command(c, name, req);
    }
    cJSON_Delete(req);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    control *c = p->data;
    while (!c->pending) {
        char *buf = NULL;
        int n = nn_recv(c->sock, &buf, NN_MSG, NN_DONTWAIT);
        if (n < 0) break;
        handle_request(c, buf, (size_t)n);
        nn_freemsg(buf);
    }
}

int control_open(uv_loop_t *loop, hub *h, const char *url, const char *token, int ack_wait_ms,
                 void (*on_stop)(void *), void *user, control **out, sim_error *err)
{
    *out = NULL;
    control *c = calloc(1, sizeof *c);
    if (!c) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    c->h = h;
    c->ack_wait_ms = ack_wait_ms;
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
    uv_timer_init(loop, &c->timer);
    c->poll.data = c->timer.data = c;
    c->open_handles = 2;
    uv_poll_start(&c->poll, UV_READABLE, on_poll);
    hub_set_ack_listener(h, on_ack, c);
    *out = c;
    return SIM_OK;
}

static void on_closed(uv_handle_t *hd)
{
    control *c = hd->data;
    if (--c->open_handles) return;
    cJSON_Delete(c->acted);
    cJSON_Delete(c->refused);
    nn_close(c->sock);
    free(c->token);
    free(c);
}

void control_close(control *c)
{
    if (!c) return;
    hub_set_ack_listener(c->h, NULL, NULL);
    uv_poll_stop(&c->poll);
    uv_close((uv_handle_t *)&c->poll, on_closed);
    uv_close((uv_handle_t *)&c->timer, on_closed);
}
