/* drive: the ego's vehicle.state drives the proactive events: context.nearby when it
 * enters or leaves a POI's radius, and context.guidance along the active route
 * (docs/context.md, "Events"). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "sim_msg_context.h"
#include "sim_msg_vehicle.h"

static void publish(cs_server *s, const char *topic, cJSON *payload)
{
    if (payload) sim_bus_publish(s->bus, topic, s->t, payload);
    cJSON_Delete(payload);
}

/* POI i against the ego: enter or leave, once per state (seen). */
static void visit(cs_server *s, int i)
{
    if (s->seen[i] == s->pass) return;
    s->seen[i] = s->pass;
    const double *p = &s->poi_xyr[3 * i];
    double d = hypot(s->x - p[0], s->y - p[1]);
    bool in = s->inside[i] ? d <= p[2] + CS_NEARBY_HYSTERESIS : d <= p[2];
    if (in == s->inside[i]) return;
    s->inside[i] = in;
    if (in) {
        s->inside_list[s->n_inside++] = i;
    } else {
        int k = 0;
        while (k < s->n_inside && s->inside_list[k] != i) k++;
        assert(k < s->n_inside); /* the list holds exactly the POIs inside */
        s->inside_list[k] = s->inside_list[--s->n_inside];
    }
    cJSON *poi = sim_context_poi_json(s->db, s->poi_rowid[i], d);
    if (!poi) return;
    sim_msg_context_nearby m = {.event = "leave", .distance = round(d * 100) / 100, .x = p[0], .y = p[1]};
    if (in) snprintf(m.event, sizeof m.event, "enter");
    snprintf(m.poi, sizeof m.poi, "%s", cJSON_GetObjectItem(poi, "id")->valuestring);
    snprintf(m.name, sizeof m.name, "%s", cJSON_GetObjectItem(poi, "name")->valuestring);
    snprintf(m.category, sizeof m.category, "%s", cJSON_GetObjectItem(poi, "category")->valuestring);
    cJSON_Delete(poi);
    publish(s, SIM_TOPIC_CONTEXT_NEARBY, sim_msg_context_nearby_encode(&m));
}

/* The POI of a rowid (poi_rowid is sorted: sim_context_poi_all reads them by pk). */
static void on_box_hit(int64_t rowid, void *user)
{
    cs_server *s = user;
    int lo = 0, hi = s->n_pois - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->poi_rowid[mid] == rowid) {
            visit(s, mid);
            return;
        }
        if (s->poi_rowid[mid] < rowid) lo = mid + 1;
        else hi = mid - 1;
    }
}

/* Enter and leave events: the POIs whose radius may reach the ego (the R*Tree's box of
 * the largest radius around it) and those it is inside now (which it may leave),
 * instead of every POI on every state. */
static void nearby(cs_server *s)
{
    if (!s->n_pois) return;
    if (++s->pass == 0) { /* wrapped: forget every old mark */
        memset(s->seen, 0, (size_t)s->n_pois * sizeof *s->seen);
        s->pass = 1;
    }
    double r = s->max_radius + CS_NEARBY_HYSTERESIS;
    sim_error err = {0};
    if (sim_context_poi_box(s->db, s->x - r, s->y - r, s->x + r, s->y + r, on_box_hit, s, &err))
        sim_throttle_say(&s->bad_output, stderr, "context-server", "context.nearby", sim_throttle_clock(), "context.nearby: %s",
                         err.msg);
    for (int k = s->n_inside - 1; k >= 0; k--) visit(s, s->inside_list[k]); /* visit may remove k */
}

static void guidance_event(cs_server *s)
{
    const sim_route *r = &s->route;
    const sim_guidance *gd = &s->gd;
    const sim_maneuver *m = &r->mans[gd->next];
    sim_msg_context_guidance g = {.route = s->route_no, .index = gd->next,
                                  .distance = round(sim_guidance_distance(gd) * 10) / 10,
                                  .remaining = round(fmax(0, r->length - gd->s) * 10) / 10, .off_route = gd->off_route,
                                  .rerouted = s->rerouted, .arrived = gd->arrived};
    snprintf(g.next, sizeof g.next, "%s", sim_maneuver_name(m->type));
    int leg = m->leg;
    while (leg + 1 < r->n_legs && s->map.g.nodes[r->legs[leg].node].junction >= 0) leg++;
    snprintf(g.road, sizeof g.road, "%s", sim_route_map_road_id(&s->map, r->legs[leg].node));
    /* ETA: the rest of the route at its speed limits, in proportion along the legs */
    double eta = 0;
    for (int i = 0; i < r->n_legs; i++) {
        const sim_route_leg *l = &r->legs[i];
        double a = l->at, b = l->at + (l->t1 - l->t0);
        if (b <= gd->s) continue;
        double t0 = l->t0 + fmax(0, gd->s - a);
        eta += sim_route_graph_time(&s->map.g, l->node, t0, l->t1);
    }
    g.eta = round(eta * 10) / 10;
    s->rerouted = false;
    s->last_event_t = s->t;
    publish(s, SIM_TOPIC_CONTEXT_GUIDANCE, sim_msg_context_guidance_encode(&g));
}

/* The active guidance is kept in the database under this key, so that a context-server
 * restarted after a crash (simctl run restarts it) resumes it: {"dest": [x, y], "route":
 * number, "session": a hash of the session's secret}. A clean end stores null. */
#define CS_GUIDANCE_KEY "context-server.guidance"

/* The session this process belongs to: FNV-1a of $SIM_BUS_SECRET as hex ("" without
 * one), so that a later session on the same database never resumes an old route. */
static void session_tag(char out[17])
{
    const char *secret = getenv("SIM_BUS_SECRET");
    if (!secret || !*secret) {
        out[0] = '\0';
        return;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = secret; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static void save_guidance(cs_server *s, bool active)
{
    cJSON *v;
    if (active) {
        char tag[17];
        session_tag(tag);
        v = cJSON_CreateObject();
        cJSON *dest = cJSON_AddArrayToObject(v, "dest");
        cJSON_AddItemToArray(dest, cJSON_CreateNumber(s->dest_x));
        cJSON_AddItemToArray(dest, cJSON_CreateNumber(s->dest_y));
        cJSON_AddNumberToObject(v, "route", s->route_no);
        cJSON_AddStringToObject(v, "session", tag);
    } else {
        v = cJSON_CreateNull();
    }
    sim_error err = {0};
    if (v && sim_context_kv_set(s->db, CS_GUIDANCE_KEY, v, &err))
        fprintf(stderr, "context-server: cannot keep the active guidance for a restart: %s\n", err.msg);
    cJSON_Delete(v);
}

void cs_guidance_end(cs_server *s)
{
    bool was = s->guiding;
    sim_route_free(&s->route);
    s->guiding = false;
    if (was && s->db) save_guidance(s, false);
    s->saved = false;
}

/* At the first vehicle.state: guidance a killed predecessor of this session left is
 * taken up again, from where the car is now, under the same route number (marked
 * rerouted: the route is new, the destination is not; the number is the request's,
 * re-routes after it are not saved). */
static void resume_guidance(cs_server *s)
{
    s->resume_checked = true;
    cJSON *v = NULL;
    sim_error err = {0};
    if (!s->db || sim_context_kv_get(s->db, CS_GUIDANCE_KEY, &v, &err) || !cJSON_IsObject(v)) {
        cJSON_Delete(v);
        return;
    }
    char tag[17];
    session_tag(tag);
    const cJSON *dest = cJSON_GetObjectItemCaseSensitive(v, "dest");
    const cJSON *no = cJSON_GetObjectItemCaseSensitive(v, "route");
    const cJSON *ses = cJSON_GetObjectItemCaseSensitive(v, "session");
    bool ok = cJSON_GetArraySize(dest) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(dest, 0)) &&
              cJSON_IsNumber(cJSON_GetArrayItem(dest, 1)) && cJSON_IsNumber(no) && cJSON_IsString(ses) &&
              strcmp(ses->valuestring, tag) == 0;
    if (ok) {
        double dx = cJSON_GetArrayItem(dest, 0)->valuedouble, dy = cJSON_GetArrayItem(dest, 1)->valuedouble;
        sim_route_end from = {s->x, s->y, s->heading}, to = {dx, dy, NAN};
        sim_route r;
        if (sim_route_map_route(&s->map, &from, &to, 2.0, &r, &err) == SIM_OK) {
            fprintf(stderr, "context-server: resuming the guidance of route %d to (%.1f, %.1f)\n", no->valueint, dx, dy);
            s->route_no = no->valueint - 1; /* cs_guidance_begin counts it up again */
            s->rerouted = true;
            cs_guidance_begin(s, &r, dx, dy);
        } else {
            fprintf(stderr, "context-server: cannot resume the guidance to (%.1f, %.1f): %s\n", dx, dy, err.msg);
        }
    }
    cJSON_Delete(v);
}

void cs_guidance_begin(cs_server *s, sim_route *r, double dx, double dy)
{
    sim_route_free(&s->route);
    s->route = *r;
    memset(r, 0, sizeof *r);
    s->guiding = true;
    s->route_no++;
    s->dest_x = dx;
    s->dest_y = dy;
    s->resume_checked = true; /* a route of this process wins over a saved one */
    /* Kept once per destination: a re-route (same destination) writes nothing, so a
     * driver off the route does not cost a synchronous commit every retry. */
    if (!s->saved || s->saved_x != dx || s->saved_y != dy) {
        save_guidance(s, true);
        s->saved = true;
        s->saved_x = dx;
        s->saved_y = dy;
    }
    sim_guidance_start(&s->gd, &s->route);
    if (s->have_ego) {
        sim_guidance_change ch;
        sim_guidance_update(&s->gd, s->x, s->y, s->heading, &ch);
    }
    guidance_event(s);
}

/* Off the route: a new one from where the car is, heading as it heads. */
static void reroute(cs_server *s)
{
    if (s->t < s->retry_t) return;
    sim_route_end from = {s->x, s->y, s->heading}, to = {s->dest_x, s->dest_y, NAN};
    sim_route r;
    sim_error err;
    if (sim_route_map_route(&s->map, &from, &to, 2.0, &r, &err)) {
        s->retry_t = s->t + CS_REROUTE_RETRY;
        fprintf(stderr, "context-server: re-routing: %s\n", err.msg);
        return;
    }
    s->rerouted = true;
    cs_guidance_begin(s, &r, s->dest_x, s->dest_y);
}

static void guidance(cs_server *s)
{
    sim_guidance_change ch;
    sim_guidance_update(&s->gd, s->x, s->y, s->heading, &ch);
    if (s->gd.off_route) {
        if (ch.went_off) guidance_event(s); /* off_route: true, then the new route */
        reroute(s);
        return;
    }
    if (ch.next_changed || ch.announce || ch.arrived || s->t - s->last_event_t >= CS_GUIDANCE_PERIOD)
        guidance_event(s);
    if (ch.arrived) cs_guidance_end(s);
}

void cs_on_vehicle_state(cs_server *s, const cJSON *msg, double t)
{
    sim_msg_vehicle_state st;
    sim_error err;
    if (sim_msg_vehicle_state_decode(msg, &st, &err) || !isfinite(st.pos[0]) || !isfinite(st.pos[1])) return;
    s->x = st.pos[0];
    s->y = st.pos[1];
    s->heading = st.heading; /* NAN when absent: any direction */
    s->speed = isfinite(st.speed) ? st.speed : 0;
    if (!isnan(t)) s->t = t;
    s->have_ego = true;
    nearby(s);
    if (!s->resume_checked) resume_guidance(s);
    if (s->guiding) guidance(s);
}
