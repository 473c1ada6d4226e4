/* sim_command: validation of operator commands (see sim_command.h). */
#include "sim_command.h"

#include "sim_enum.h"
#include "sim_sky.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const sim_command_names[] = {"pause", "resume", "restart", "speed_limit", "hud",
                                            "traffic", "light", "sound", "stop", "status", "seek",
                                            "automation", "signal", NULL};

static int need_string(const cJSON *req, const char *cmd, const char *field, sim_error *err,
                       const cJSON **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, field);
    if (!cJSON_IsString(v) || !v->valuestring)
        return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be a string%s", cmd, field,
                             v ? "" : " (missing)");
    *out = v;
    return SIM_OK;
}

static int opt_bool(const cJSON *req, const char *cmd, const char *field, sim_error *err, int *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, field);
    *present = v != NULL;
    if (v && !cJSON_IsBool(v))
        return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be true or false", cmd, field);
    return SIM_OK;
}

/* The command's own fields of req (a request or a control.<cmd> message), checked for
 * the named command. */
static int validate_fields(const cJSON *req, const char *cmd, sim_error *err)
{
    if (sim_enum_parse(cmd, sim_command_names, -1) < 0) {
        /* The list in the message comes from the table, so the two cannot disagree. */
        char list[256] = "";
        for (size_t i = 0; sim_command_names[i]; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i == 0 ? "" : sim_command_names[i + 1] ? ", " : " or ",
                     sim_command_names[i]);
        }
        return sim_error_set(err, SIM_EINVAL, "unknown command \"%.64s\" (expected %s)", cmd, list);
    }
    const cJSON *v;
    int rc, present;
    if (strcmp(cmd, "restart") == 0) {
        if ((rc = need_string(req, cmd, "at", err, &v))) return rc;
        if (!v->valuestring[0]) return sim_error_set(err, SIM_EINVAL, "restart: \"at\" must name a start point");
    } else if (strcmp(cmd, "speed_limit") == 0) {
        v = cJSON_GetObjectItemCaseSensitive(req, "kmh");
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 || v->valuedouble > 1000)
            return sim_error_set(err, SIM_EINVAL, "speed_limit: \"kmh\" must be a number from 0 (no limit) to 1000");
    } else if (strcmp(cmd, "seek") == 0) {
        /* "to", not "t": the command travels as control.seek, whose envelope has its own t. */
        v = cJSON_GetObjectItemCaseSensitive(req, "to");
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
            return sim_error_set(err, SIM_EINVAL, "seek: \"to\" must be a simulation time in seconds >= 0");
    } else if (strcmp(cmd, "hud") == 0) {
        if ((rc = need_string(req, cmd, "text", err, &v))) return rc;
        if (strlen(v->valuestring) > 1024)
            return sim_error_set(err, SIM_EINVAL, "hud: \"text\" is longer than 1024 bytes");
    } else if (strcmp(cmd, "traffic") == 0) {
        int has_freeze;
        if ((rc = opt_bool(req, cmd, "freeze", err, &has_freeze))) return rc;
        v = cJSON_GetObjectItemCaseSensitive(req, "density");
        if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1)))
            return sim_error_set(err, SIM_EINVAL, "traffic: \"density\" must be a number from 0 to 1");
        if (!v && !has_freeze)
            return sim_error_set(err, SIM_EINVAL, "traffic: give \"density\" (0..1) or \"freeze\" (true/false)");
    } else if (strcmp(cmd, "light") == 0) {
        if ((rc = need_string(req, cmd, "mode", err, &v))) return rc;
        char names[64];
        if (sim_light_find(v->valuestring, true) < 0) /* the operator's lights (sim_sky.def) */
            return sim_error_set(err, SIM_EINVAL, "light: \"mode\" must be %s, not \"%.32s\"",
                                 sim_light_operator_words(true, names, sizeof names), v->valuestring);
    } else if (strcmp(cmd, "automation") == 0) {
        /* input-node's automation: a mode, its set speed and time gap, or a TOR. */
        static const char *const modes[] = {"manual", "acc", "lc", "l2", "l3", NULL};
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
        const cJSON *kmh = cJSON_GetObjectItemCaseSensitive(req, "set_kmh");
        const cJSON *gap = cJSON_GetObjectItemCaseSensitive(req, "gap_s");
        const cJSON *tor = cJSON_GetObjectItemCaseSensitive(req, "tor");
        if (mode && !(cJSON_IsString(mode) && sim_enum_parse(mode->valuestring, modes, -1) >= 0))
            return sim_error_set(err, SIM_EINVAL, "automation: \"mode\" must be \"manual\", \"acc\", \"lc\", \"l2\" or \"l3\"");
        if (kmh && !(cJSON_IsNumber(kmh) && kmh->valuedouble >= 10 && kmh->valuedouble <= 250))
            return sim_error_set(err, SIM_EINVAL, "automation: \"set_kmh\" must be a number from 10 to 250");
        if (gap && !(cJSON_IsNumber(gap) && gap->valuedouble >= 0.8 && gap->valuedouble <= 3.0))
            return sim_error_set(err, SIM_EINVAL, "automation: \"gap_s\" must be a number from 0.8 to 3.0");
        if (tor && !(cJSON_IsString(tor) && tor->valuestring[0] && strlen(tor->valuestring) < 48))
            return sim_error_set(err, SIM_EINVAL, "automation: \"tor\" must be a reason of 1 to 47 bytes");
        if (!mode && !kmh && !gap && !tor)
            return sim_error_set(err, SIM_EINVAL, "automation: give \"mode\", \"set_kmh\", \"gap_s\" or \"tor\"");
    } else if (strcmp(cmd, "signal") == 0) {
        /* traffic lights (traffic-node): hold a head in a state (or "auto"), or move a
         * controller to a phase; state names are the node's to check (sim_lights.h) */
        const cJSON *head = cJSON_GetObjectItemCaseSensitive(req, "head");
        const cJSON *ctl = cJSON_GetObjectItemCaseSensitive(req, "controller");
        if (!head == !ctl)
            return sim_error_set(err, SIM_EINVAL, "signal: give \"head\" (with \"state\") or \"controller\" (with \"phase\")");
        if (head) {
            if ((rc = need_string(req, cmd, "head", err, &v))) return rc;
            if ((rc = need_string(req, cmd, "state", err, &v))) return rc;
        } else {
            if ((rc = need_string(req, cmd, "controller", err, &v))) return rc;
            v = cJSON_GetObjectItemCaseSensitive(req, "phase");
            if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1000) ||
                v->valuedouble != floor(v->valuedouble))
                return sim_error_set(err, SIM_EINVAL, "signal: \"phase\" must be a phase number from 0");
        }
    } else if (strcmp(cmd, "sound") == 0) {
        if ((rc = opt_bool(req, cmd, "on", err, &present))) return rc;
        if (!present) return sim_error_set(err, SIM_EINVAL, "sound: \"on\" must be true or false (missing)");
    }
    return SIM_OK;
}

int sim_command_validate(const cJSON *req, const char **cmd_out, sim_error *err)
{
    if (!cJSON_IsObject(req)) return sim_error_set(err, SIM_EINVAL, "a request must be a JSON object");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(req, "cmd");
    if (!cJSON_IsString(c) || !c->valuestring)
        return sim_error_set(err, SIM_EINVAL, "missing \"cmd\" (a string naming the command)");
    int rc = validate_fields(req, c->valuestring, err);
    if (rc) return rc;
    if (cmd_out) *cmd_out = c->valuestring;
    return SIM_OK;
}

int sim_command_validate_message(const cJSON *msg, const char **cmd_out, sim_error *err)
{
    const cJSON *topic = cJSON_GetObjectItemCaseSensitive(msg, "topic");
    if (!cJSON_IsObject(msg) || !cJSON_IsString(topic) || strncmp(topic->valuestring, "control.", 8) != 0)
        return sim_error_set(err, SIM_EINVAL, "not a control.<cmd> message");
    const char *cmd = topic->valuestring + 8;
    int rc = validate_fields(msg, cmd, err);
    if (rc) return rc;
    if (cmd_out) *cmd_out = cmd;
    return SIM_OK;
}

/* Copies a string or integer field into dst as text ("" when absent or another type). */
static void copy_text(const cJSON *obj, const char *key, char *dst, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    dst[0] = '\0';
    if (cJSON_IsString(v)) snprintf(dst, cap, "%s", v->valuestring);
    else if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble)
        snprintf(dst, cap, "%lld", (long long)v->valuedouble);
}

void sim_command_ack_for(const cJSON *command_msg, bool ok, const char *error, sim_command_ack *out)
{
    memset(out, 0, sizeof *out);
    const cJSON *topic = cJSON_GetObjectItemCaseSensitive(command_msg, "topic");
    if (cJSON_IsString(topic) && strncmp(topic->valuestring, "control.", 8) == 0)
        snprintf(out->cmd, sizeof out->cmd, "%s", topic->valuestring + 8);
    copy_text(command_msg, "id", out->id, sizeof out->id);
    out->ok = ok;
    if (!ok) snprintf(out->error, sizeof out->error, "%s", error && error[0] ? error : "refused");
}

cJSON *sim_command_ack_encode(const sim_command_ack *a)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "cmd", a->cmd);
    if (a->id[0]) cJSON_AddStringToObject(o, "id", a->id);
    else cJSON_AddNullToObject(o, "id");
    cJSON_AddBoolToObject(o, "ok", a->ok);
    if (a->ok) cJSON_AddNullToObject(o, "error");
    else cJSON_AddStringToObject(o, "error", a->error);
    if (cJSON_GetArraySize(o) != 4) {   /* an allocation inside failed */
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_command_ack_decode(const cJSON *msg, sim_command_ack *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(msg, "cmd");
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(msg, "ok");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "error");
    if (!cJSON_IsString(cmd) || !cmd->valuestring[0])
        return sim_error_set(err, SIM_EINVAL, "control.ack: \"cmd\" must be a command name");
    if (!cJSON_IsBool(ok)) return sim_error_set(err, SIM_EINVAL, "control.ack: \"ok\" must be true or false");
    if (id && !cJSON_IsNull(id) && !cJSON_IsString(id) && !cJSON_IsNumber(id))
        return sim_error_set(err, SIM_EINVAL, "control.ack: \"id\" must be the command's id or null");
    if (e && !cJSON_IsNull(e) && !cJSON_IsString(e))
        return sim_error_set(err, SIM_EINVAL, "control.ack: \"error\" must be a string or null");
    if (cJSON_IsFalse(ok) && !cJSON_IsString(e))
        return sim_error_set(err, SIM_EINVAL, "control.ack: a refusal (\"ok\": false) must say why in \"error\"");
    snprintf(out->cmd, sizeof out->cmd, "%s", cmd->valuestring);
    copy_text(msg, "id", out->id, sizeof out->id);
    out->ok = cJSON_IsTrue(ok);
    if (cJSON_IsString(e)) snprintf(out->error, sizeof out->error, "%s", e->valuestring);
    return SIM_OK;
}

int sim_command_parse(const char *text, size_t len, cJSON **out, const char **cmd, sim_error *err)
{
    *out = NULL;
    cJSON *req = cJSON_ParseWithLength(text, len);
    if (!req) return sim_error_set(err, SIM_EINVAL, "request is not valid JSON");
    int rc = sim_command_validate(req, cmd, err);
    if (rc) {
        cJSON_Delete(req);
        return rc;
    }
    *out = req;
    return SIM_OK;
}
