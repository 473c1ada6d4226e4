/* sim_osi: osi3.GroundTruth from sim_osi_ground_truth (see sim_osi.h). The protobuf-c
 * structs of one message are built on the heap (one block per object), packed, and
 * freed. */
#include "sim_osi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "osi_groundtruth.pb-c.h"

void sim_osi_object_clear(sim_osi_object *o)
{
    memset(o, 0, sizeof *o);
    o->vehicle_type = -1;
    double *nums[] = {o->dimension, o->position, o->orientation, o->velocity, o->acceleration, o->orientation_rate,
                      o->bbcenter_to_rear, o->bbcenter_to_front};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) nums[i][0] = nums[i][1] = nums[i][2] = NAN;
    o->radius_wheel = NAN;
}

const char *sim_osi_protobuf_version(void) { return protobuf_c_version(); }

uint64_t sim_osi_id(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    h &= (1ull << 53) - 1;
    return h < 2 ? h + 2 : h;
}

/* The protobuf-c messages of one moving object. */
typedef struct mo_block {
    Osi3__MovingObject mo;
    Osi3__Identifier id;
    Osi3__BaseMoving base;
    Osi3__Dimension3d dim;
    Osi3__Vector3d pos, vel, acc, rear, front;
    Osi3__Orientation3d ori, rate;
    Osi3__MovingObject__VehicleAttributes va;
    Osi3__MovingObject__VehicleClassification vc;
    Osi3__MovingObject__MovingObjectClassification moc;
    Osi3__Identifier lane;
    Osi3__Identifier *lanes[1];
    Osi3__MovingObject__VehicleClassification__LightState ls;
    Osi3__ExternalReference ref;
    Osi3__ExternalReference *refs[1];
    char *ident[1];
} mo_block;

static Osi3__Vector3d *vec(Osi3__Vector3d *v, const double d[3])
{
    if (isnan(d[0])) return NULL;
    osi3__vector3d__init(v);
    v->has_x = v->has_y = v->has_z = 1;
    v->x = d[0], v->y = d[1], v->z = d[2];
    return v;
}

static Osi3__Orientation3d *ori(Osi3__Orientation3d *o, const double d[3])
{
    if (isnan(d[0])) return NULL;
    osi3__orientation3d__init(o);
    o->has_roll = o->has_pitch = o->has_yaw = 1;
    o->roll = d[0], o->pitch = d[1], o->yaw = d[2];
    return o;
}

static void fill(mo_block *b, const sim_osi_object *o)
{
    osi3__moving_object__init(&b->mo);
    osi3__identifier__init(&b->id);
    b->id.has_value = 1;
    b->id.value = o->id;
    b->mo.id = &b->id;
    osi3__base_moving__init(&b->base);
    if (!isnan(o->dimension[0])) {
        osi3__dimension3d__init(&b->dim);
        b->dim.has_length = b->dim.has_width = b->dim.has_height = 1;
        b->dim.length = o->dimension[0], b->dim.width = o->dimension[1], b->dim.height = o->dimension[2];
        b->base.dimension = &b->dim;
    }
    b->base.position = vec(&b->pos, o->position);
    b->base.orientation = ori(&b->ori, o->orientation);
    b->base.velocity = vec(&b->vel, o->velocity);
    b->base.acceleration = vec(&b->acc, o->acceleration);
    b->base.orientation_rate = ori(&b->rate, o->orientation_rate);
    b->mo.base = &b->base;
    b->mo.has_type = 1;
    b->mo.type = (Osi3__MovingObject__Type)o->type;
    osi3__moving_object__vehicle_attributes__init(&b->va);
    b->va.bbcenter_to_rear = vec(&b->rear, o->bbcenter_to_rear);
    b->va.bbcenter_to_front = vec(&b->front, o->bbcenter_to_front);
    if (!isnan(o->radius_wheel)) b->va.has_radius_wheel = 1, b->va.radius_wheel = o->radius_wheel;
    if (o->number_wheels > 0) b->va.has_number_wheels = 1, b->va.number_wheels = (uint32_t)o->number_wheels;
    if (b->va.bbcenter_to_rear || b->va.bbcenter_to_front || b->va.has_radius_wheel || b->va.has_number_wheels)
        b->mo.vehicle_attributes = &b->va;
    if (o->vehicle_type >= 0) {
        osi3__moving_object__vehicle_classification__init(&b->vc);
        b->vc.has_type = 1;
        b->vc.type = (Osi3__MovingObject__VehicleClassification__Type)o->vehicle_type;
        osi3__moving_object__vehicle_classification__light_state__init(&b->ls);
        if (o->indicator) {
            b->ls.has_indicator_state = 1;
            b->ls.indicator_state = (Osi3__MovingObject__VehicleClassification__LightState__IndicatorState)o->indicator;
        }
        if (o->brake_light) {
            b->ls.has_brake_light_state = 1;
            b->ls.brake_light_state =
                (Osi3__MovingObject__VehicleClassification__LightState__BrakeLightState)o->brake_light;
        }
        if (b->ls.has_indicator_state || b->ls.has_brake_light_state) b->vc.light_state = &b->ls;
        b->mo.vehicle_classification = &b->vc;
    }
    if (o->assigned_lane) {
        osi3__moving_object__moving_object_classification__init(&b->moc);
        osi3__identifier__init(&b->lane);
        b->lane.has_value = 1, b->lane.value = o->assigned_lane;
        b->lanes[0] = &b->lane;
        b->moc.n_assigned_lane_id = 1, b->moc.assigned_lane_id = b->lanes;
        b->mo.moving_object_classification = &b->moc;
    }
    if (o->name[0]) {
        osi3__external_reference__init(&b->ref);
        b->ref.type = (char *)SIM_OSI_SOURCE_TYPE;
        b->ident[0] = (char *)o->name;
        b->ref.n_identifier = 1;
        b->ref.identifier = b->ident;
        b->refs[0] = &b->ref;
        b->mo.n_source_reference = 1;
        b->mo.source_reference = b->refs;
    }
}

/* The protobuf-c messages of one traffic light bulb. */
typedef struct tl_block {
    Osi3__TrafficLight tl;
    Osi3__Identifier id;
    Osi3__BaseStationary base;
    Osi3__Dimension3d dim;
    Osi3__Vector3d pos;
    Osi3__Orientation3d ori;
    Osi3__TrafficLight__Classification cls;
    Osi3__ExternalReference ref;
    Osi3__ExternalReference *refs[1];
    char *ident[1];
} tl_block;

static void fill_light(tl_block *b, const sim_osi_light *l)
{
    osi3__traffic_light__init(&b->tl);
    osi3__identifier__init(&b->id);
    b->id.has_value = 1, b->id.value = l->id;
    b->tl.id = &b->id;
    osi3__base_stationary__init(&b->base);
    osi3__dimension3d__init(&b->dim);
    b->dim.has_length = b->dim.has_width = b->dim.has_height = 1;
    b->dim.length = l->dimension[0], b->dim.width = l->dimension[1], b->dim.height = l->dimension[2];
    b->base.dimension = &b->dim;
    b->base.position = vec(&b->pos, l->position);
    double o[3] = {0, 0, l->yaw};
    b->base.orientation = ori(&b->ori, o);
    b->tl.base = &b->base;
    osi3__traffic_light__classification__init(&b->cls);
    b->cls.has_color = b->cls.has_icon = b->cls.has_mode = 1;
    b->cls.color = (Osi3__TrafficLight__Classification__Color)l->color;
    b->cls.icon = (Osi3__TrafficLight__Classification__Icon)l->icon;
    b->cls.mode = (Osi3__TrafficLight__Classification__Mode)l->mode;
    b->tl.classification = &b->cls;
    if (l->name[0]) {
        osi3__external_reference__init(&b->ref);
        b->ref.type = (char *)SIM_OSI_SOURCE_TYPE;
        b->ident[0] = (char *)l->name;
        b->ref.n_identifier = 1, b->ref.identifier = b->ident;
        b->refs[0] = &b->ref;
        b->tl.n_source_reference = 1, b->tl.source_reference = b->refs;
    }
}

/* The protobuf-c messages of the lanes and boundaries, in blocks freed together. */
typedef struct lane_blocks {
    Osi3__Lane *lanes;
    Osi3__Lane **lane_p;
    Osi3__Lane__Classification *lcls;
    Osi3__LaneBoundary *bounds;
    Osi3__LaneBoundary **bound_p;
    Osi3__LaneBoundary__Classification *bcls;
    Osi3__Identifier *ids;          /* per lane 5 (id, adjacent l/r, boundary l/r), per boundary 1 */
    Osi3__Identifier **id_p;
    Osi3__Vector3d *vecs;           /* every point */
    Osi3__Vector3d **vec_p;         /* the lanes' centre lines */
    Osi3__LaneBoundary__BoundaryPoint *bp;
    Osi3__LaneBoundary__BoundaryPoint **bp_p;
} lane_blocks;

static void lane_blocks_free(lane_blocks *b)
{
    free(b->lanes), free(b->lane_p), free(b->lcls), free(b->bounds), free(b->bound_p), free(b->bcls);
    free(b->ids), free(b->id_p), free(b->vecs), free(b->vec_p), free(b->bp), free(b->bp_p);
}

static Osi3__Identifier *ident(Osi3__Identifier *i, uint64_t v)
{
    osi3__identifier__init(i);
    i->has_value = 1, i->value = v;
    return i;
}

static int fill_lanes(lane_blocks *b, const sim_osi_road_lanes *L)
{
    size_t nl = L->n_lanes, nb = L->n_boundaries, nc = 0, np = 0;
    for (size_t i = 0; i < nl; i++) nc += L->lanes[i].n_centerline;
    for (size_t i = 0; i < nb; i++) np += L->boundaries[i].n_points;
    b->lanes = calloc(nl + 1, sizeof *b->lanes), b->lane_p = calloc(nl + 1, sizeof *b->lane_p);
    b->lcls = calloc(nl + 1, sizeof *b->lcls);
    b->bounds = calloc(nb + 1, sizeof *b->bounds), b->bound_p = calloc(nb + 1, sizeof *b->bound_p);
    b->bcls = calloc(nb + 1, sizeof *b->bcls);
    b->ids = calloc(5 * nl + nb + 1, sizeof *b->ids), b->id_p = calloc(4 * nl + 1, sizeof *b->id_p);
    b->vecs = calloc(nc + np + 1, sizeof *b->vecs), b->vec_p = calloc(nc + 1, sizeof *b->vec_p);
    b->bp = calloc(np + 1, sizeof *b->bp), b->bp_p = calloc(np + 1, sizeof *b->bp_p);
    if (!b->lanes || !b->lane_p || !b->lcls || !b->bounds || !b->bound_p || !b->bcls || !b->ids || !b->id_p ||
        !b->vecs || !b->vec_p || !b->bp || !b->bp_p)
        return -1;
    Osi3__Identifier *id = b->ids, **idp = b->id_p;
    Osi3__Vector3d *v = b->vecs, **vp = b->vec_p;
    for (size_t i = 0; i < nl; i++) {
        const sim_osi_lane *l = &L->lanes[i];
        Osi3__Lane *m = &b->lanes[i];
        Osi3__Lane__Classification *c = &b->lcls[i];
        osi3__lane__init(m);
        osi3__lane__classification__init(c);
        m->id = ident(id++, l->id);
        c->has_type = 1, c->type = (Osi3__Lane__Classification__Type)l->type;
        c->has_centerline_is_driving_direction = 1, c->centerline_is_driving_direction = l->forward;
        c->n_centerline = l->n_centerline, c->centerline = vp;
        for (size_t k = 0; k < l->n_centerline; k++) *vp++ = vec(v++, l->centerline[k]);
        uint64_t ref[4] = {l->left_adjacent, l->right_adjacent, l->right_boundary, l->left_boundary};
        Osi3__Identifier ***dst[4] = {&c->left_adjacent_lane_id, &c->right_adjacent_lane_id,
                                      &c->right_lane_boundary_id, &c->left_lane_boundary_id};
        size_t *cnt[4] = {&c->n_left_adjacent_lane_id, &c->n_right_adjacent_lane_id, &c->n_right_lane_boundary_id,
                          &c->n_left_lane_boundary_id};
        for (int k = 0; k < 4; k++)
            if (ref[k]) *dst[k] = idp, *cnt[k] = 1, *idp++ = ident(id++, ref[k]);
        m->classification = c;
        b->lane_p[i] = m;
    }
    Osi3__LaneBoundary__BoundaryPoint *bp = b->bp, **bpp = b->bp_p;
    for (size_t i = 0; i < nb; i++) {
        const sim_osi_boundary *s = &L->boundaries[i];
        Osi3__LaneBoundary *m = &b->bounds[i];
        Osi3__LaneBoundary__Classification *c = &b->bcls[i];
        osi3__lane_boundary__init(m);
        osi3__lane_boundary__classification__init(c);
        m->id = ident(id++, s->id);
        m->n_boundary_line = s->n_points, m->boundary_line = bpp;
        for (size_t k = 0; k < s->n_points; k++) {
            osi3__lane_boundary__boundary_point__init(bp);
            bp->position = vec(v++, s->points[k].position);
            bp->has_width = 1, bp->width = s->points[k].width;
            *bpp++ = bp++;
        }
        if (s->type) c->has_type = 1, c->type = (Osi3__LaneBoundary__Classification__Type)s->type;
        if (s->color) c->has_color = 1, c->color = (Osi3__LaneBoundary__Classification__Color)s->color;
        m->classification = c;
        b->bound_p[i] = m;
    }
    return 0;
}

int sim_osi_groundtruth_encode(const sim_osi_ground_truth *gt, uint8_t **buf, size_t *cap, size_t *len,
                               sim_error *err)
{
    *len = 0;
    if (!(gt->t >= 0) || !isfinite(gt->t))
        return sim_error_set(err, SIM_EINVAL, "osi: a GroundTruth's time must be finite and >= 0, got %g", gt->t);
    Osi3__GroundTruth m = OSI3__GROUND_TRUTH__INIT;
    Osi3__InterfaceVersion v = OSI3__INTERFACE_VERSION__INIT;
    v.has_version_major = v.has_version_minor = v.has_version_patch = 1;
    v.version_major = SIM_OSI_VERSION_MAJOR, v.version_minor = SIM_OSI_VERSION_MINOR;
    v.version_patch = SIM_OSI_VERSION_PATCH;
    m.version = &v;
    Osi3__Timestamp ts = OSI3__TIMESTAMP__INIT;
    long long ns = llround(gt->t * 1e9);
    ts.has_seconds = ts.has_nanos = 1;
    ts.seconds = ns / 1000000000;
    ts.nanos = (uint32_t)(ns % 1000000000);
    m.timestamp = &ts;
    Osi3__Identifier host = OSI3__IDENTIFIER__INIT;
    host.has_value = 1;
    host.value = gt->host_id;
    m.host_vehicle_id = &host;
    mo_block *blocks = NULL;
    Osi3__MovingObject **mos = NULL;
    if (gt->n_objects) {
        blocks = calloc(gt->n_objects, sizeof *blocks);
        mos = calloc(gt->n_objects, sizeof *mos);
        if (!blocks || !mos) {
            free(blocks);
            free(mos);
            return sim_error_set(err, SIM_ENOMEM, "osi: out of memory for %zu moving objects", gt->n_objects);
        }
        for (size_t i = 0; i < gt->n_objects; i++) {
            fill(&blocks[i], &gt->objects[i]);
            mos[i] = &blocks[i].mo;
        }
    }
    Osi3__EnvironmentalConditions env = OSI3__ENVIRONMENTAL_CONDITIONS__INIT;
    Osi3__EnvironmentalConditions__TimeOfDay tod = OSI3__ENVIRONMENTAL_CONDITIONS__TIME_OF_DAY__INIT;
    if (gt->env) {
        const sim_osi_environment *e = gt->env;
        if (e->ambient_illumination) {
            env.has_ambient_illumination = 1;
            env.ambient_illumination = (Osi3__EnvironmentalConditions__AmbientIllumination)e->ambient_illumination;
        }
        if (e->seconds_since_midnight >= 0) {
            tod.has_seconds_since_midnight = 1;
            tod.seconds_since_midnight = (uint32_t)e->seconds_since_midnight;
            env.time_of_day = &tod;
        }
        if (e->precipitation) {
            env.has_precipitation = 1;
            env.precipitation = (Osi3__EnvironmentalConditions__Precipitation)e->precipitation;
        }
        if (e->fog) env.has_fog = 1, env.fog = (Osi3__EnvironmentalConditions__Fog)e->fog;
        m.environmental_conditions = &env;
    }
    m.n_moving_object = gt->n_objects;
    m.moving_object = mos;
    tl_block *tls = NULL;
    Osi3__TrafficLight **tlp = NULL;
    if (gt->n_lights) {
        tls = calloc(gt->n_lights, sizeof *tls);
        tlp = calloc(gt->n_lights, sizeof *tlp);
        if (!tls || !tlp) {
            free(tls), free(tlp), free(blocks), free(mos);
            return sim_error_set(err, SIM_ENOMEM, "osi: out of memory for %zu traffic lights", gt->n_lights);
        }
        for (size_t i = 0; i < gt->n_lights; i++) {
            fill_light(&tls[i], &gt->lights[i]);
            tlp[i] = &tls[i].tl;
        }
    }
    m.n_traffic_light = gt->n_lights;
    m.traffic_light = tlp;
    int rc = 0;
    lane_blocks lb = {0};
    if (gt->lanes && (gt->lanes->n_lanes || gt->lanes->n_boundaries)) {
        if (fill_lanes(&lb, gt->lanes))
            rc = sim_error_set(err, SIM_ENOMEM, "osi: out of memory for %zu lanes", gt->lanes->n_lanes);
        m.n_lane = gt->lanes->n_lanes, m.lane = lb.lane_p;
        m.n_lane_boundary = gt->lanes->n_boundaries, m.lane_boundary = lb.bound_p;
    }
    size_t n = rc ? 0 : osi3__ground_truth__get_packed_size(&m);
    if (!rc && (n > *cap || !*buf)) {
        uint8_t *nb = realloc(*buf, n ? n : 1);
        if (!nb) rc = sim_error_set(err, SIM_ENOMEM, "osi: out of memory for a %zu-byte GroundTruth", n);
        else *buf = nb, *cap = n ? n : 1;
    }
    if (!rc) *len = osi3__ground_truth__pack(&m, *buf);
    lane_blocks_free(&lb);
    free(tls);
    free(tlp);
    free(blocks);
    free(mos);
    return rc;
}
