/* vehicle_support: see vehicle_support.h. */
#include "vehicle_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_vehicle_file.h"
#include "sim_vehicle_impl.h"

int vs_load_params(sim_vehicle_params *out)
{
    const char *root = getenv("SIM_ROOT");
    char path[512];
    snprintf(path, sizeof(path), "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_error err = {0};
    int rc = sim_vehicle_params_load(path, out, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    return rc;
}

sim_vehicle *vs_new_car(const sim_vehicle_params *p, sim_vehicle_model m, const sim_vehicle_ground *g,
                        double x, double y, double heading, double speed, int gear)
{
    sim_vehicle *v = malloc(sizeof(*v));
    if (!v)
        return NULL;
    sim_vehicle_start st = {x, y, heading, speed, gear};
    sim_error err = {0};
    if (sim_vehicle_init(v, p, m, SIM_INTEGRATOR_MIDPOINT, g, &st, &err) != 0) {
        fprintf(stderr, "vs_new_car: %s\n", err.msg);
        free(v);
        return NULL;
    }
    return v;
}

double vs_energy(const sim_vehicle *v)
{
    const sim_vehicle_params *p = &v->p;
    const double *y = v->y;
    double e = 0.5 * p->mass * (y[7] * y[7] + y[8] * y[8] + y[9] * y[9]);
    /* The simple model's yaw follows the steering (kinematics, no yaw dynamics): its
     * rotation carries no energy of its own. */
    if (v->model != SIM_VEHICLE_SIMPLE)
        e += 0.5 * (p->inertia.x * y[10] * y[10] + p->inertia.y * y[11] * y[11] +
                    p->inertia.z * y[12] * y[12]);
    e += p->mass * SIM_GRAVITY * y[2];
    if (v->model == SIM_VEHICLE_FULL) {
        for (int i = 0; i < SIM_WHEELS; i++) {
            double w = y[SIM_VY_WHEEL(i) + SIM_VW_SPIN];
            e += 0.5 * (i < 2 ? p->wheel_inertia_front : p->wheel_inertia_rear) * w * w;
        }
        e += 0.5 * p->engine.inertia * y[SIM_VY_ENGINE] * y[SIM_VY_ENGINE];
    }
    return e;
}

int vs_bumps_sample(void *ctx, double x, double y, sim_ground_sample *out)
{
    const double *b = ctx;
    double kx = 2.0 * M_PI / b[1], ky = 2.0 * M_PI / b[2];
    double sx = sin(kx * x), cx = cos(kx * x), sy = sin(ky * y), cy = cos(ky * y);
    out->height = b[0] * sx * sy;
    double dzdx = b[0] * kx * cx * sy, dzdy = b[0] * ky * sx * cy;
    double inv = 1.0 / sqrt(dzdx * dzdx + dzdy * dzdy + 1.0);
    out->normal[0] = -dzdx * inv;
    out->normal[1] = -dzdy * inv;
    out->normal[2] = inv;
    out->friction = 1.0;
    out->roughness = 0.0;
    return 0;
}

double vs_bumps_height(void *ctx, double x, double y)
{
    const double *b = ctx;
    return b[0] * sin(2.0 * M_PI / b[1] * x) * sin(2.0 * M_PI / b[2] * y);
}

double vs_bumps_max_slope(const double *b)
{
    return b[0] * 2.0 * M_PI * sqrt(1.0 / (b[1] * b[1]) + 1.0 / (b[2] * b[2]));
}

int vs_split_mu_sample(void *ctx, double x, double y, sim_ground_sample *out)
{
    (void)ctx;
    (void)x;
    out->height = 0.0;
    out->normal[0] = out->normal[1] = 0.0;
    out->normal[2] = 1.0;
    out->friction = y > 0.0 ? 0.1 : 1.0;
    out->roughness = 0.0;
    return 0;
}

double vs_hold_speed(const sim_vehicle_state *s, double target, double *integ, double dt)
{
    double err = target - s->speed;
    *integ += err * dt;
    double u = 0.3 * err + 0.1 * *integ;
    return u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
}
