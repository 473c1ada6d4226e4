/* state: the traffic node's world and its messages (see state.h). */
#include "state.h"
#include "xosc.h"

#include "sim_traffic_contact.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lights.h"
#include "sim_file.h"
#include "sim_traffic_snapshot.h"

int tn_world_open(tn_world *w, const char *scenario, sim_error *err)
{
    int rc = tn_xosc_load(w, scenario, err);
    if (rc) return rc;
    rc = sim_traffic_setup_init(&w->su, w->sc, 0, err);
    if (rc) {
        sim_scenario_free(w->sc);
        w->sc = NULL;
        return rc;
    }
    w->density_scale = 1.0;
    return tn_world_restart(w, err);
}

void tn_world_close(tn_world *w)
{
    tn_xosc_stop(w);
    if (w->started) sim_traffic_free(&w->t);
    tn_lights_stop(w);
    sim_traffic_setup_free(&w->su);
    sim_scenario_free(w->sc);
    w->sc = NULL;
    w->started = false;
}

int tn_world_restart(tn_world *w, sim_error *err)
{
    if (w->started) sim_traffic_free(&w->t);
    w->started = false;
    w->n_cabs = 0; /* the other cabs' cars come back with their next states */
    int rc = sim_traffic_setup_start(&w->su, &w->t, err);
    if (rc) return rc;
    w->started = true;
    w->t.density_scale = w->density_scale;
    w->t.frozen = w->frozen;
    w->n_touching = 0;
    if ((rc = tn_lights_start(w, err))) return rc;
    return tn_xosc_start(w, err);
}

void tn_world_place_cab(tn_world *w, const char *cab, double x, double y, double heading, double speed)
{
    int k = 0;
    while (k < w->n_cabs && strcmp(w->cabs[k].name, cab) != 0) k++;
    if (k == w->n_cabs) {
        sim_error err = {0};
        int slot = k < TN_MAX_CABS && w->started ? sim_traffic_add_external(&w->t, w->ego_len, w->ego_width, &err) : -1;
        if (slot < 0) return; /* no room: its car is not among the agents */
        snprintf(w->cabs[k].name, sizeof w->cabs[k].name, "%s", cab);
        w->cabs[k].slot = slot;
        w->n_cabs++;
    }
    sim_traffic_place_external(&w->t, w->cabs[k].slot, x, y, heading, speed);
}

static void agent_id(const tn_world *w, int slot, char *buf, size_t n)
{
    for (int k = 0; k < w->n_cabs; k++)
        if (w->cabs[k].slot == slot) {
            snprintf(buf, n, SIM_CAB_PREFIX "%s", w->cabs[k].name);
            return;
        }
    if (slot < w->su.n_specs) snprintf(buf, n, "%s", w->sc->agents[slot].id);
    else snprintf(buf, n, "a%u", w->t.agents[slot].uid);
}

static void vehicle(tn_world *w, int slot, sim_msg_traffic_vehicle *v)
{
    const sim_traffic_agent *a = &w->t.agents[slot];
    const sim_lg_lane *l = &w->su.graph.lanes[a->lane];
    memset(v, 0, sizeof *v);
    agent_id(w, slot, v->id, sizeof v->id);
    snprintf(v->model, sizeof v->model, "%s",
             slot < w->su.n_specs ? w->sc->agents[slot].model : sim_traffic_vmodels[a->model].name);
    snprintf(v->road, sizeof v->road, "%s", w->sc->net.roads[l->road].id);
    sim_ground g;
    sim_scenario_ground(w->sc, a->x, a->y, &g);
    double speed = sim_traffic_agent_speed(&w->t, slot);
    v->pos[0] = a->x;
    v->pos[1] = a->y;
    v->pos[2] = g.z;
    v->heading = a->heading;
    v->size[0] = a->length;
    v->size[1] = a->width;
    v->size[2] = a->height;
    v->velocity[0] = speed * cos(a->heading);
    v->velocity[1] = speed * sin(a->heading);
    v->brake = a->brake_light || w->t.frozen;
    v->left = a->ind_left;
    v->right = a->ind_right;
    v->lane = l->lane_id;
    v->s = sim_lanegraph_road_s(&w->su.graph, a->lane, a->s);
}

cJSON *tn_state_payload(tn_world *w)
{
    sim_msg_traffic_state m = {.run = w->run, .total = w->t.n_active, .ambient = w->t.n_ambient, .frozen = w->t.frozen,
                               .vehicles = w->vehicles};
    if (w->ego_cab) snprintf(m.cab, sizeof m.cab, "%s", w->ego_cab);
    double x = 0, y = 0;
    if (w->t.ego.valid) {
        x = w->t.ego.x;
        y = w->t.ego.y;
    } else if (w->sc->n_starts > 0) {
        x = w->sc->starts[0].x;
        y = w->sc->starts[0].y;
    }
    m.n_vehicles = sim_traffic_nearest(&w->t, x, y, w->radius, w->order, w->max_vehicles);
    for (int i = 0; i < m.n_vehicles; i++) vehicle(w, w->order[i], &w->vehicles[i]);
    int n_sb = tn_xosc_vehicles(w, w->vehicles + m.n_vehicles, w->max_vehicles - m.n_vehicles, &m.lead);
    m.n_vehicles += n_sb;
    m.total += n_sb;
    const sim_traffic_lead *ld = &w->t.lead;
    if (ld->valid) {
        m.lead.valid = true;
        agent_id(w, ld->agent, m.lead.id, sizeof m.lead.id);
        m.lead.gap = ld->gap;
        m.lead.speed = ld->speed;
        m.lead.thw = ld->thw;
        m.lead.ttc = ld->ttc;
    }
    return sim_msg_traffic_state_encode(&m);
}

cJSON *tn_event_payload(const tn_world *w, int k)
{
    static const char *const actions[] = {"lane_switch", "brake", "hud_text", "log_mark"};
    const sim_traffic_event *e = &w->t.events[k];
    const sim_trigger *tr = &w->sc->triggers[e->trigger];
    sim_msg_traffic_event m = {0};
    snprintf(m.trigger, sizeof m.trigger, "%s", tr->id);
    snprintf(m.action, sizeof m.action, "%s", actions[w->su.triggers[e->trigger].action]);
    if (w->su.triggers[e->trigger].agent >= 0) agent_id(w, w->su.triggers[e->trigger].agent, m.agent, sizeof m.agent);
    if (e->by < 0) snprintf(m.by, sizeof m.by, "ego");
    else agent_id(w, e->by, m.by, sizeof m.by);
    if (tr->text) snprintf(m.text, sizeof m.text, "%s", tr->text);
    return sim_msg_traffic_event_encode(&m);
}

int tn_collisions(tn_world *w, cJSON **out, int max)
{
    int slots[TN_MAX_CONTACTS], n_out = 0;
    int n = sim_traffic_contacts(&w->t, TN_CONTACT_MARGIN, slots, TN_MAX_CONTACTS);
    uint32_t now[TN_MAX_CONTACTS];
    for (int i = 0; i < n; i++) {
        const sim_traffic_agent *a = &w->t.agents[slots[i]];
        now[i] = a->uid;
        bool before = false;
        for (int k = 0; k < w->n_touching && !before; k++) before = w->touching[k] == a->uid;
        if (before || n_out >= max) continue;
        sim_msg_traffic_collision c = {.rel_speed = sim_traffic_contact_speed(&w->t, slots[i]),
                                       .ego_speed = w->t.ego.speed,
                                       .other_speed = sim_traffic_agent_speed(&w->t, slots[i])};
        agent_id(w, slots[i], c.other, sizeof c.other);
        snprintf(c.model, sizeof c.model, "%s",
                 slots[i] < w->su.n_specs ? w->sc->agents[slots[i]].model : sim_traffic_vmodels[a->model].name);
        out[n_out++] = sim_msg_traffic_collision_encode(&c);
    }
    memcpy(w->touching, now, (size_t)n * sizeof *now);
    w->n_touching = n;
    return n_out;
}

/* ---- restart with state ---- */

typedef struct tn_snap_header {
    uint32_t magic;      /* "TNSN" */
    int32_t run;
    double t;
    uint64_t serial;     /* counts the saves: the newer of the two slots wins */
    uint64_t session;    /* FNV-1a of $SIM_BUS_SECRET, 0 without one */
    uint64_t sb_len;     /* the OpenSCENARIO storyboard's bytes at the end (0: none) */
    uint64_t sb_hash;    /* and their FNV-1a: a write cut short is told (the traffic part has its own) */
    uint64_t lt_len;     /* the lights' holds and moved cycles after the storyboard (lights.c) */
    uint64_t lt_hash;
} tn_snap_header;
#define TN_SNAP_MAGIC 0x4e534e54u

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t session_tag(void)
{
    const char *secret = getenv("SIM_BUS_SECRET");
    if (!secret || !*secret) return 0;
    return fnv1a((const unsigned char *)secret, strlen(secret));
}

int tn_snapshot_open(tn_snapshot *s, const char *path, sim_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd[0] = s->fd[1] = -1;
    for (int k = 0; k < 2; k++) {
        snprintf(s->path[k], sizeof s->path[k], "%s.%d", path, k);
        s->fd[k] = open(s->path[k], O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (s->fd[k] < 0) {
            int e = errno;
            tn_snapshot_close(s, false);
            return sim_error_set(err, SIM_EIO, "%s: cannot open the traffic snapshot: %s", path, strerror(e));
        }
    }
    return SIM_OK;
}

void tn_snapshot_close(tn_snapshot *s, bool remove)
{
    for (int k = 0; k < 2; k++) {
        if (s->fd[k] >= 0) close(s->fd[k]);
        s->fd[k] = -1;
        if (remove && s->path[k][0]) unlink(s->path[k]);
    }
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}

int tn_snapshot_save(tn_snapshot *s, const tn_world *w, double t, sim_error *err)
{
    size_t sb_len = w->have_sb ? sim_storyboard_snapshot_size(&w->sb) : 0;
    size_t lt_len = tn_lights_snapshot_size(w);
    size_t need = sizeof(tn_snap_header) + sim_traffic_snapshot_size(&w->t) + sb_len + lt_len;
    if (need > s->cap) {
        unsigned char *nb = realloc(s->buf, need);
        if (!nb) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        s->buf = nb;
        s->cap = need;
    }
    tn_snap_header h = {.magic = TN_SNAP_MAGIC, .run = w->run, .t = t, .serial = ++s->serial, .session = session_tag(),
                        .sb_len = sb_len, .lt_len = lt_len};
    size_t len = sizeof h + sim_traffic_snapshot_write(&w->t, s->buf + sizeof h, need - sizeof h - sb_len - lt_len);
    if (sb_len) { /* the storyboard after the traffic (docs/openscenario.md: a restart continues it) */
        sim_storyboard_snapshot_write(&w->sb, s->buf + len, sb_len);
        h.sb_hash = fnv1a(s->buf + len, sb_len);
        len += sb_len;
    }
    /* then the lights' holds: an operator's `simctl signal HEAD STATE` outlives a restart */
    tn_lights_snapshot_write(w, s->buf + len);
    h.lt_hash = fnv1a(s->buf + len, lt_len);
    len += lt_len;
    memcpy(s->buf, &h, sizeof h);
    /* Written in place, in turns: no rename (ext4 flushes a file renamed over another,
     * which held every tick up), and a write cut short by a kill leaves the other slot
     * whole (the snapshot's hash tells a torn one). */
    int fd = s->fd[s->next];
    if (pwrite(fd, s->buf, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) != 0)
        return sim_error_set(err, SIM_EIO, "%s: cannot write the traffic snapshot: %s", s->path[s->next],
                             strerror(errno));
    s->next ^= 1;
    return SIM_OK;
}

int tn_snapshot_load(tn_snapshot *s, tn_world *w, double *t, sim_error *err)
{
    int best = -1;
    tn_snap_header hb = {0};
    sim_error why = {0};
    for (int k = 0; k < 2; k++) {
        struct stat st;
        tn_snap_header h;
        if (fstat(s->fd[k], &st) != 0 || (size_t)st.st_size < sizeof h ||
            pread(s->fd[k], &h, sizeof h, 0) != (ssize_t)sizeof h || h.magic != TN_SNAP_MAGIC)
            continue;
        if (h.session != session_tag()) {
            sim_error_set(&why, SIM_ENOTFOUND, "%s: from another session", s->path[k]);
            continue;
        }
        if (best < 0 || h.serial > hb.serial) best = k, hb = h;
    }
    /* The newer slot first; a torn one (a kill mid-write) falls back to the other. */
    for (int pass = 0; pass < 2 && best >= 0; pass++) {
        int k = pass ? best ^ 1 : best;
        struct stat st;
        tn_snap_header h;
        if (fstat(s->fd[k], &st) != 0 || (size_t)st.st_size < sizeof h || st.st_size > (64 << 20)) continue;
        unsigned char *data = malloc((size_t)st.st_size);
        if (!data) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        int rc = SIM_EINVAL;
        if (pread(s->fd[k], data, (size_t)st.st_size, 0) == st.st_size) {
            memcpy(&h, data, sizeof h);
            size_t all = (size_t)st.st_size - sizeof h;
            bool lt_ok = h.lt_len <= all && fnv1a(data + sizeof h + all - h.lt_len, h.lt_len) == h.lt_hash;
            size_t body = lt_ok ? all - h.lt_len : 0; /* traffic and storyboard */
            if (h.magic == TN_SNAP_MAGIC && h.session == session_tag() && lt_ok && h.sb_len <= body &&
                (h.sb_len == 0 || fnv1a(data + sizeof h + body - h.sb_len, h.sb_len) == h.sb_hash) &&
                (h.sb_len > 0) == w->have_sb)
                rc = sim_traffic_snapshot_read(&w->t, data + sizeof h, body - h.sb_len, &why);
            else if (h.magic == TN_SNAP_MAGIC && h.session == session_tag())
                sim_error_set(&why, SIM_EINVAL, "%s: the storyboard's or the lights' part is cut short or not this "
                              "scenario's", s->path[k]);
            if (rc == SIM_OK && h.sb_len)
                rc = sim_storyboard_snapshot_read(&w->sb, data + sizeof h + body - h.sb_len, h.sb_len, &why);
            if (rc == SIM_OK)
                rc = tn_lights_snapshot_read(w, data + sizeof h + body, h.lt_len, &why);
        }
        free(data);
        if (rc == SIM_OK) {
            w->run = h.run;
            *t = h.t;
            s->serial = h.serial;
            s->next = k ^ 1;
            return SIM_OK;
        }
    }
    if (why.code) return sim_error_set(err, why.code == SIM_ENOTFOUND ? SIM_ENOTFOUND : SIM_EINVAL, "%s", why.msg);
    return sim_error_set(err, SIM_ENOTFOUND, "no snapshot");
}
