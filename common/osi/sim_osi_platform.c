/* sim_osi_platform: sim_osi_object from the bus's vehicle.state and traffic.state
 * (see sim_osi.h; the frames and each field in docs/osi.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_osi.h"

void sim_osi_ego_geometry_from_params(const sim_vehicle_params *p, sim_osi_ego_geometry *g)
{
    g->box_half[0] = p->box_half.x, g->box_half[1] = p->box_half.y, g->box_half[2] = p->box_half.z;
    g->box_offset[0] = p->box_offset.x, g->box_offset[1] = p->box_offset.y, g->box_offset[2] = p->box_offset.z;
    /* the axles' middles: wheelbase split at the COG, at the wheel centres' height */
    double z = p->tire.radius - p->cog_height;
    g->front_axle[0] = p->cog_to_front, g->front_axle[1] = 0, g->front_axle[2] = z;
    g->rear_axle[0] = p->cog_to_front - p->wheelbase, g->rear_axle[1] = 0, g->rear_axle[2] = z;
    g->wheel_radius = p->tire.radius;
}

/* out = R(roll, pitch, yaw) b: body frame to world, R = Rz(yaw) Ry(pitch) Rx(roll). */
static void rotate(double roll, double pitch, double yaw, const double b[3], double out[3])
{
    double cr = cos(roll), sr = sin(roll), cp = cos(pitch), sp = sin(pitch), cy = cos(yaw), sy = sin(yaw);
    double x = b[0], y = b[1], z = b[2];
    double y1 = cr * y - sr * z, z1 = sr * y + cr * z;  /* Rx */
    double x2 = cp * x + sp * z1, z2 = -sp * x + cp * z1; /* Ry */
    out[0] = cy * x2 - sy * y1;                            /* Rz */
    out[1] = sy * x2 + cy * y1;
    out[2] = z2;
}

static double or0(double v) { return isnan(v) ? 0 : v; }

void sim_osi_object_from_vehicle(const sim_msg_vehicle_state *s, const sim_osi_ego_geometry *g, sim_osi_object *o)
{
    sim_osi_object_clear(o);
    o->id = SIM_OSI_HOST_ID;
    snprintf(o->name, sizeof o->name, "ego");
    o->type = SIM_OSI_MO_VEHICLE;
    o->vehicle_type = SIM_OSI_VC_CAR;
    o->brake_light = isnan(s->brake) ? SIM_OSI_BRAKE_UNKNOWN : s->brake > 0 ? SIM_OSI_BRAKE_NORMAL : SIM_OSI_BRAKE_OFF;
    double roll = or0(s->roll), pitch = or0(s->pitch), yaw = s->heading;
    for (int k = 0; k < 3; k++) o->dimension[k] = 2 * g->box_half[k];
    double off[3];
    rotate(roll, pitch, yaw, g->box_offset, off);
    for (int k = 0; k < 3; k++) o->position[k] = s->pos[k] + off[k];
    o->orientation[0] = roll, o->orientation[1] = pitch, o->orientation[2] = yaw;
    const double *w = s->ang_vel_body; /* p, q, r: about body x, y, z */
    bool have_w = !isnan(w[0]) && !isnan(w[1]) && !isnan(w[2]);
    if (!isnan(s->vel[0])) {
        double ww[3] = {0, 0, 0};
        if (have_w) rotate(roll, pitch, yaw, w, ww);
        o->velocity[0] = s->vel[0] + ww[1] * off[2] - ww[2] * off[1];
        o->velocity[1] = s->vel[1] + ww[2] * off[0] - ww[0] * off[2];
        o->velocity[2] = s->vel[2] + ww[0] * off[1] - ww[1] * off[0];
    }
    if (!isnan(s->accel_body[0])) rotate(roll, pitch, yaw, s->accel_body, o->acceleration);
    if (have_w) { /* body rates to the Tait-Bryan angles' rates */
        double sr = sin(roll), cr = cos(roll), cp = cos(pitch), tp = tan(pitch);
        o->orientation_rate[0] = w[0] + (w[1] * sr + w[2] * cr) * tp;
        o->orientation_rate[1] = w[1] * cr - w[2] * sr;
        o->orientation_rate[2] = (w[1] * sr + w[2] * cr) / cp;
    }
    for (int k = 0; k < 3; k++) {
        o->bbcenter_to_rear[k] = g->rear_axle[k] - g->box_offset[k];
        o->bbcenter_to_front[k] = g->front_axle[k] - g->box_offset[k];
    }
    o->radius_wheel = g->wheel_radius;
    o->number_wheels = 4;
}

/* The type of a traffic.state model name (docs/osi.md, "Types"). */
static void classify(const char *model, sim_osi_object *o)
{
    static const struct { const char *model; int vc; } vehicles[] = {
        {"car", SIM_OSI_VC_CAR},       {"hatchback", SIM_OSI_VC_CAR},   {"sedan", SIM_OSI_VC_CAR},
        {"estate", SIM_OSI_VC_CAR},    {"suv", SIM_OSI_VC_CAR},         {"van", SIM_OSI_VC_DELIVERY_VAN},
        {"truck", SIM_OSI_VC_HEAVY_TRUCK}, {"bus", SIM_OSI_VC_BUS},     {"motorbike", SIM_OSI_VC_MOTORBIKE},
        {"motorcycle", SIM_OSI_VC_MOTORBIKE}, {"bicycle", SIM_OSI_VC_BICYCLE},
    };
    if (strcmp(model, "pedestrian") == 0) {
        o->type = SIM_OSI_MO_PEDESTRIAN;
        return;
    }
    if (strcmp(model, "obstacle") == 0) {
        o->type = SIM_OSI_MO_OTHER;
        return;
    }
    o->type = SIM_OSI_MO_VEHICLE;
    o->vehicle_type = SIM_OSI_VC_OTHER; /* a vehicle of a kind OSI's list does not name (tractor, ...) */
    for (size_t i = 0; i < sizeof vehicles / sizeof *vehicles; i++)
        if (strcmp(model, vehicles[i].model) == 0) o->vehicle_type = vehicles[i].vc;
}

void sim_osi_object_from_traffic(const sim_msg_traffic_vehicle *v, sim_osi_object *o)
{
    sim_osi_object_clear(o);
    o->id = sim_osi_id(v->id);
    snprintf(o->name, sizeof o->name, "%s", v->id);
    classify(v->model, o);
    if (o->vehicle_type >= 0) {
        o->indicator = v->left && v->right ? SIM_OSI_IND_WARNING
                       : v->left           ? SIM_OSI_IND_LEFT
                       : v->right          ? SIM_OSI_IND_RIGHT
                                           : SIM_OSI_IND_OFF;
        o->brake_light = v->brake ? SIM_OSI_BRAKE_NORMAL : SIM_OSI_BRAKE_OFF;
    }
    for (int k = 0; k < 3; k++) {
        o->dimension[k] = v->size[k];
        o->position[k] = v->pos[k];
        o->velocity[k] = v->velocity[k];
    }
    o->position[2] += v->size[2] / 2;
    o->orientation[0] = 0, o->orientation[1] = 0, o->orientation[2] = v->heading;
}

void sim_osi_environment_from(sim_light light, double time_of_day, sim_weather weather, double visibility, double t,
                              sim_osi_environment *out)
{
    memset(out, 0, sizeof *out);
    /* the scenario's clock, running with the simulation (the sun does not move) */
    if (time_of_day >= 0 && time_of_day <= 24 && t >= 0) {
        double s = fmod(floor(time_of_day * 3600 + t), 86400);
        out->seconds_since_midnight = (long)s;
    } else {
        out->seconds_since_midnight = -1;
    }
    /* OSI's classes by visibility V, m: [40000, inf[ excellent ... [0, 50[ dense */
    static const double at_least[] = {40000, 10000, 4000, 2000, 1000, 200, 50, 0};
    if (visibility >= 0)
        for (int i = 0; i < 8; i++)
            if (visibility >= at_least[i]) {
                out->fog = 2 + i;
                break;
            }
    out->precipitation = weather == SIM_WEATHER_RAIN || weather == SIM_WEATHER_SNOW ? 1 : 2;
    /* LEVEL1 (2): night without artificial light; LEVEL4 (5): twilight; LEVEL7 (8): an
     * overcast day; LEVEL8 (9): average to full daylight */
    bool grey = weather != SIM_WEATHER_CLEAR;
    out->ambient_illumination = light == SIM_LIGHT_NIGHT                        ? 2
                                : light == SIM_LIGHT_DAWN || light == SIM_LIGHT_DUSK ? 5
                                : grey                                       ? 8
                                                                             : 9;
}

/* render-node/lights.c's housing: the post's half width, the housing's depth, and the
 * defaults of a head without a size or height */
#define HEAD_POST 0.07
#define HEAD_DEPTH 0.25

int sim_osi_lights_from_head(const sim_light_head *h, sim_light_state s, sim_osi_light out[3])
{
    bool ped = h->kind == SIM_HEAD_PEDESTRIAN;
    double height = h->height > 0.2 ? h->height : 0.8, width = h->width > 0.1 ? h->width : 0.3;
    double z0 = h->z + (h->z_offset > 0 ? h->z_offset : 2.5);
    double f[2] = {cos(h->heading), sin(h->heading)};
    double cx = h->x + (HEAD_POST + HEAD_DEPTH / 2) * f[0], cy = h->y + (HEAD_POST + HEAD_DEPTH / 2) * f[1];
    static const char *const names[3] = {"red", "yellow", "green"};
    bool lit[3] = {s == SIM_SIGNAL_RED || s == SIM_SIGNAL_RED_AMBER, s == SIM_SIGNAL_AMBER || s == SIM_SIGNAL_RED_AMBER,
                   s == SIM_SIGNAL_GREEN};
    int n = 0;
    for (int k = 0; k < 3; k++) {
        if (ped && k == 1) continue;
        sim_osi_light *l = &out[n++];
        memset(l, 0, sizeof *l);
        char key[160];
        snprintf(key, sizeof key, "%s/%s", h->id, names[k]);
        l->id = sim_osi_id(key);
        snprintf(l->name, sizeof l->name, "%s", h->id);
        l->color = 2 + k;
        l->icon = ped ? 15 : 2;
        l->mode = lit[k] ? 3 : k == 1 && !ped && s == SIM_SIGNAL_FLASHING_AMBER ? 4 : 2;
        double share = ped ? 0.5 : 1.0 / 3; /* each bulb's part of the housing, top to bottom */
        double zc = ped ? z0 + height * (k == 0 ? 0.75 : 0.25) : z0 + height * (5 - 2 * k) / 6.0;
        l->dimension[0] = HEAD_DEPTH, l->dimension[1] = width, l->dimension[2] = height * share;
        l->position[0] = cx, l->position[1] = cy, l->position[2] = zc;
        l->yaw = h->heading;
    }
    return n;
}
