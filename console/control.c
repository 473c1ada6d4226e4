/* control: operator commands from pages. A page sends
 * {"topic":"console.command","req":R,"cmd":"pause",...}; the gateway sends the command
 * to the dispatcher's control endpoint (sim_control, nanomsg REQ) on a libuv worker
 * thread, because the endpoint answers only once the modules have acknowledged (up to
 * its ack wait), and hands the endpoint's reply to the page as
 * {"topic":"console.reply","req":R,"reply":{ok, cmd, acted, refused, silent, error}}
 * (or "error" when the endpoint could not be reached). The dispatcher validates the
 * command, as for simctl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "sim_control.h"

#define COMMAND_TIMEOUT_MS 5000

typedef struct {
    uv_work_t work;
    console_page *page;
    char *request;      /* JSON text sent */
    double req;         /* the page's number for it */
    char *reply;        /* from the endpoint, or NULL with err */
    char err[256];
} command_job;

static void run_command(uv_work_t *w)
{
    command_job *j = w->data;
    j->reply = sim_control_request(j->page->gw->control_url, j->request, COMMAND_TIMEOUT_MS, j->err, sizeof j->err);
}

static void command_done(uv_work_t *w, int status)
{
    command_job *j = w->data;
    console_page *p = j->page;
    p->pending--;
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "topic", SIM_TOPIC_CONSOLE_REPLY);
    cJSON_AddNumberToObject(out, "req", j->req);
    cJSON *reply = j->reply ? cJSON_Parse(j->reply) : NULL;
    if (reply) cJSON_AddItemToObject(out, "reply", reply);
    else cJSON_AddStringToObject(out, "error", j->reply ? "the control endpoint's reply is not JSON" : j->err);
    char *s = cJSON_PrintUnformatted(out);
    if (s) page_send(p, s, strlen(s));
    free(s);
    cJSON_Delete(out);
    free(j->reply);
    free(j->request);
    free(j);
    page_release(p);
}

void console_command(console_page *p, const cJSON *msg)
{
    /* the endpoint takes one command at a time anyway; a page cannot fill the worker
     * threads that other pages' commands need */
    if (p->pending >= CONSOLE_PAGE_COMMANDS_MAX) {
        page_send_error(p, "console.command: refused: 4 commands of this page are waiting for their answers");
        return;
    }
    cJSON *req = cJSON_Duplicate(msg, 1);
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(msg, "req");
    command_job *j = calloc(1, sizeof *j);
    if (!req || !j) {
        cJSON_Delete(req);
        free(j);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(req, "topic");
    cJSON_DeleteItemFromObjectCaseSensitive(req, "req");
    cJSON_DeleteItemFromObjectCaseSensitive(req, "token");
    if (p->gw->bus_token) cJSON_AddStringToObject(req, "token", p->gw->bus_token);
    j->request = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    j->page = p;
    j->req = cJSON_IsNumber(num) ? num->valuedouble : 0;
    j->work.data = j;
    if (!j->request || uv_queue_work(p->gw->loop, &j->work, run_command, command_done) != 0) {
        free(j->request);
        free(j);
        page_send_error(p, "console.command: could not start the request");
        return;
    }
    p->pending++;
}
