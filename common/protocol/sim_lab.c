/* sim_lab: the lab file's reader (see sim_lab.h). */
#include "sim_lab.h"

#include <string.h>

#include "sim_json.h"

static const char *const TOP_KEYS[] = {"hosts", "dispatcher", "modules", "channels", NULL};
static const char *const HOST_KEYS[] = {"name", "address", "user", "port", "dir", NULL};
static const char *const DISP_KEYS[] = {"host", "port", NULL};
static const char *const CHANNEL_KEYS[] = {"name", "host", "view", "display", "viewport", NULL};
static const char *const VIEWS[] = {"front", "left", "right", "rear-mirror", "left-mirror", "right-mirror", "chase", NULL};

/* Names, users and addresses end up as words of ssh's command line and of the remote
 * shell's: letters, digits, '_', '.', '-', not starting with '-'. */
static bool plain_word(const char *s)
{
    if (!s[0] || s[0] == '-') return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.' || *p == '-'))
            return false;
    return true;
}

static int word(sim_json *j, const cJSON *o, const char *path, const char *key, bool required, char *out, size_t n)
{
    int rc = sim_json_strcpy(j, o, path, key, required, out, n);
    char p[SIM_JSON_PATH_MAX];
    if (!rc && out[0] && !plain_word(out))
        rc = sim_json_found(j, sim_json_key_path(p, path, key), cJSON_GetObjectItem(o, key),
                            "letters, digits, '_', '.' or '-' (not first)");
    if (!rc && required && !out[0])
        rc = sim_json_found(j, sim_json_key_path(p, path, key), cJSON_GetObjectItem(o, key), "a non-empty name");
    return rc;
}

/* A host name (a member's value) as its index in lab->hosts. */
static int host_ref(sim_json *j, const sim_lab *lab, const cJSON *v, const char *path, int *out)
{
    if (cJSON_IsString(v) && (*out = sim_lab_host_index(lab, v->valuestring)) >= 0) return SIM_OK;
    return sim_json_found(j, path, v, "the name of a host in \"hosts\"");
}

static int host(sim_json *j, const cJSON *o, const char *path, sim_lab *lab, int i)
{
    sim_lab_host *h = &lab->hosts[i];
    char p[SIM_JSON_PATH_MAX];
    int rc = sim_json_object(j, o, path);
    if (!rc) rc = sim_json_keys(j, o, path, HOST_KEYS, -1);
    if (!rc) rc = word(j, o, path, "name", true, h->name, sizeof h->name);
    if (!rc) rc = word(j, o, path, "address", true, h->address, sizeof h->address);
    if (!rc) rc = word(j, o, path, "user", false, h->user, sizeof h->user);
    if (!rc) rc = sim_json_int(j, o, path, "port", false, 22, 1, 65535, &h->port);
    if (!rc) rc = sim_json_strcpy(j, o, path, "dir", false, h->dir, sizeof h->dir);
    if (!rc && h->dir[0] && (h->dir[0] != '/' || strchr(h->dir, '\'') || strchr(h->dir, '\n')))
        rc = sim_json_found(j, sim_json_key_path(p, path, "dir"), cJSON_GetObjectItem(o, "dir"),
                            "an absolute path without quotes or newlines");
    for (int k = 0; !rc && k < i; k++)
        if (strcmp(lab->hosts[k].name, h->name) == 0)
            rc = sim_json_fail(j, SIM_EINVAL, sim_json_key_path(p, path, "name"),
                               "a second host named \"%s\" (hosts[%d] is too)", h->name, k);
    return rc;
}

static int channel(sim_json *j, const cJSON *o, const char *path, sim_lab *lab, int i)
{
    sim_lab_channel *c = &lab->channels[i];
    char p[SIM_JSON_PATH_MAX];
    int view;
    c->display = -1;
    int rc = sim_json_object(j, o, path);
    if (!rc) rc = sim_json_keys(j, o, path, CHANNEL_KEYS, -1);
    if (!rc) rc = word(j, o, path, "name", true, c->name, sizeof c->name);
    if (!rc) rc = host_ref(j, lab, cJSON_GetObjectItem(o, "host"), sim_json_key_path(p, path, "host"), &c->host);
    if (!rc) rc = sim_json_enum(j, o, path, "view", 0, VIEWS, -1, &view);
    if (!rc) memcpy(c->view, VIEWS[view], strlen(VIEWS[view]) + 1);
    if (!rc) rc = sim_json_int(j, o, path, "display", false, -1, 0, 63, &c->display);
    const cJSON *vp = NULL;
    if (!rc) rc = sim_json_array(j, o, path, "viewport", false, &vp);
    if (!rc && vp) {
        sim_json_key_path(p, path, "viewport");
        if (cJSON_GetArraySize(vp) != 4) return sim_json_found(j, p, vp, "[x, y, width, height] in pixels");
        char q[SIM_JSON_PATH_MAX];
        for (int k = 0; k < 4 && !rc; k++)
            rc = sim_json_integer(j, cJSON_GetArrayItem(vp, k), sim_json_index_path(q, p, k), k < 2 ? -100000 : 16,
                                  100000, &c->viewport[k]);
    }
    for (int k = 0; !rc && k < i; k++)
        if (strcmp(lab->channels[k].name, c->name) == 0)
            rc = sim_json_fail(j, SIM_EINVAL, sim_json_key_path(p, path, "name"),
                               "a second channel named \"%s\" (channels[%d] is too)", c->name, k);
    return rc;
}

static int modules(sim_json *j, const cJSON *o, sim_lab *lab)
{
    const char *path = "modules";
    for (size_t m = 0; m < SIM_MODULE_COUNT; m++) lab->module_host[m] = lab->dispatcher_host;
    if (!o) return SIM_OK;
    int rc = sim_json_object(j, o, path);
    const cJSON *it;
    char p[SIM_JSON_PATH_MAX];
    cJSON_ArrayForEach(it, o)
    {
        if (rc) break;
        if (it->string[0] == '_') continue; /* a comment */
        size_t m = 0;
        while (m < SIM_MODULE_COUNT && strcmp(sim_modules[m].exe, it->string) != 0) m++;
        sim_json_key_path(p, path, it->string);
        if (m == SIM_MODULE_COUNT)
            rc = sim_json_fail(j, SIM_EINVAL, p, "no module of that name (one of recorder, physics-node, ...: "
                                                 "the executables of common/protocol/sim_modules.def)");
        else
            rc = host_ref(j, lab, it, p, &lab->module_host[m]);
    }
    return rc;
}

int sim_lab_host_index(const sim_lab *lab, const char *name)
{
    for (int i = 0; i < lab->n_hosts; i++)
        if (strcmp(lab->hosts[i].name, name) == 0) return i;
    return -1;
}

int sim_lab_parse(const char *text, size_t len, const char *file, sim_lab *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    sim_json j = {.file = file, .err = err};
    cJSON *root = NULL;
    int rc = sim_json_parse(&j, text, len, &root);
    if (!rc) rc = sim_json_object(&j, root, "");
    if (!rc) rc = sim_json_keys(&j, root, "", TOP_KEYS, -1);
    const cJSON *arr = NULL, *it;
    char p[SIM_JSON_PATH_MAX];
    if (!rc) rc = sim_json_array(&j, root, "", "hosts", true, &arr);
    if (!rc && (cJSON_GetArraySize(arr) < 1 || cJSON_GetArraySize(arr) > SIM_LAB_HOSTS_MAX))
        rc = sim_json_found(&j, "hosts", arr, "1 to 16 hosts");
    const cJSON *list = rc ? NULL : arr;
    cJSON_ArrayForEach(it, list)
    {
        if ((rc = host(&j, it, sim_json_index_path(p, "hosts", out->n_hosts), out, out->n_hosts))) break;
        out->n_hosts++;
    }
    const cJSON *d = rc ? NULL : cJSON_GetObjectItem(root, "dispatcher");
    if (!rc) rc = sim_json_object(&j, d, "dispatcher");
    if (!rc) rc = sim_json_keys(&j, d, "dispatcher", DISP_KEYS, -1);
    if (!rc) rc = host_ref(&j, out, cJSON_GetObjectItem(d, "host"), "dispatcher.host", &out->dispatcher_host);
    if (!rc) rc = sim_json_int(&j, d, "dispatcher", "port", false, 7700, 1, 65535, &out->bus_port);
    if (!rc) rc = modules(&j, cJSON_GetObjectItem(root, "modules"), out);
    if (!rc) rc = sim_json_array(&j, root, "", "channels", false, &arr);
    if (!rc && arr && cJSON_GetArraySize(arr) > SIM_LAB_CHANNELS_MAX)
        rc = sim_json_found(&j, "channels", arr, "at most 16 channels");
    list = rc ? NULL : arr;
    cJSON_ArrayForEach(it, list)
    {
        if ((rc = channel(&j, it, sim_json_index_path(p, "channels", out->n_channels), out, out->n_channels))) break;
        out->n_channels++;
    }
    cJSON_Delete(root);
    return rc;
}
