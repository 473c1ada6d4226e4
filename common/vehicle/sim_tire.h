/* sim_tire: steady-state tyre forces from slip (Pacejka Magic Formula or a brush
 * model), combined slip by a friction ellipse, load sensitivity and aligning moment.
 *
 * Conventions (tyre frame: x forward along the wheel plane, y to its left, z up):
 *   kappa  longitudinal slip, (omega r - vx) / |vx|: positive when driving.
 *   slip_y lateral slip as tan of the slip angle, -vy / |vx|: positive when the contact
 *          patch slides to the right, which makes a force to the left (+Fy).
 *   Mz     aligning moment about z (positive CCW seen from above); for a positive slip
 *          it is negative, turning the wheel back towards its direction of travel.
 * All functions are pure. */
#ifndef SIM_TIRE_H
#define SIM_TIRE_H

typedef enum sim_tire_model {
    SIM_TIRE_PACEJKA = 0, /* Magic Formula (MF 5.2 / 6.1 pure slip), symmetric subset */
    SIM_TIRE_BRUSH = 1,   /* brush model with a parabolic pressure distribution */
} sim_tire_model;

/* Lookup tables that keep transcendental functions and Newton solves out of the
 * integration's inner loop (filled by sim_tire_prepare): atan over [0,
 * SIM_TIRE_ATAN_MAX]; sin(C atan g) over g in [0, SIM_TIRE_SHAPE_MAX] for the two shape
 * factors; and over the load, dfz = Fz/Fz0 - 1 in [SIM_TIRE_DFZ_MIN, SIM_TIRE_DFZ_MAX],
 * the longitudinal stiffness per newton Kx/Fz and the two curves' peaks B x (which move
 * with the load-dependent curvatures). Each interval holds the cubic Hermite
 * interpolant between its two nodes (values and slopes of the function there) as
 * c0 + c1 t + c2 t^2 + c3 t^3, t in [0, 1). Outside their ranges, or when the
 * coefficients changed since, the functions compute instead. */
#define SIM_TIRE_ATAN_NODES 513
#define SIM_TIRE_ATAN_MAX 16.0
#define SIM_TIRE_SHAPE_NODES 513
#define SIM_TIRE_SHAPE_MAX 16.0
#define SIM_TIRE_LOAD_NODES 257
#define SIM_TIRE_DFZ_MIN -1.0
#define SIM_TIRE_DFZ_MAX 3.0
enum { SIM_TIRE_LOAD_KX, SIM_TIRE_LOAD_PEAK_X, SIM_TIRE_LOAD_PEAK_Y, SIM_TIRE_LOAD_N };
typedef struct sim_tire_tables {
    int ready;
    double key[12]; /* the coefficients the tables were made for (Fz0, C, E, K terms) */
    double inv_fz0, inv_ky_load; /* 1 / Fz0, 1 / (pKy2 Fz0) */
    double atan[SIM_TIRE_ATAN_NODES - 1][4];
    double shape_x[SIM_TIRE_SHAPE_NODES - 1][4], shape_y[SIM_TIRE_SHAPE_NODES - 1][4];
    double load[SIM_TIRE_LOAD_N][SIM_TIRE_LOAD_NODES - 1][4];
} sim_tire_tables;

typedef struct sim_tire_params {
    sim_tire_model model;
    double radius;            /* m, unloaded */
    double vertical_stiffness;/* N/m */
    double vertical_damping;  /* N s/m */
    double relaxation_x;      /* m, longitudinal relaxation length */
    double relaxation_y;      /* m, lateral relaxation length */
    double rolling_resistance;/* coefficient f_r: rolling-resistance force / Fz */
    double fz0;               /* N, nominal load of the Magic Formula coefficients */
    double lambda_mux, lambda_muy; /* friction scaling (road/test-surface difference) */
    /* Magic Formula pure longitudinal slip */
    double pcx1, pdx1, pdx2, pex1, pex2, pex3, pkx1, pkx2, pkx3;
    /* pure lateral slip; pdy1, pdy2 and pky1 with this file's signs (force opposing the
     * slip, positive stiffness): a .tir file's ISO values change sign */
    double pcy1, pdy1, pdy2, pey1, pey2, pky1, pky2;
    /* aligning moment: pneumatic trail */
    double qbz1, qbz2, qbz3, qcz1, qdz1, qdz2, qez1, qez2;
    /* brush model */
    double brush_cx;          /* longitudinal slip stiffness per N of load (1/unit slip) */
    double brush_cy;          /* cornering stiffness per N of load (1/rad) */
    double brush_mu;          /* friction coefficient at fz0 (times the road's) */
    double brush_mu_load;     /* change of brush_mu per unit (fz - fz0)/fz0 (negative) */
    double brush_half_length; /* m, half contact length a (for Mz) */
    /* Derived by sim_tire_prepare (tables.ready = 0: not prepared, libm on every call). */
    sim_tire_tables tables;
} sim_tire_params;

/* Fills the derived fields above; call after changing the coefficients. */
void sim_tire_prepare(sim_tire_params *p);

typedef struct sim_tire_forces {
    double fx, fy, mz;
} sim_tire_forces;

/* Forces at vertical load fz (N, <= 0 gives zero) with road friction factor mu_road
 * (1 = the surface the coefficients were measured on). */
sim_tire_forces sim_tire_eval(const sim_tire_params *p, double fz, double kappa, double slip_y,
                              double mu_road);
/* The same without the aligning moment (mz = 0), for the integration's inner loop. */
sim_tire_forces sim_tire_eval_forces(const sim_tire_params *p, double fz, double kappa,
                                     double slip_y, double mu_road);

/* The slips where pure longitudinal and pure lateral force peak at load fz (kappa and
 * tan of the slip angle: the Magic Formula reads its lateral curve at
 * alpha* = tan(alpha)). Used by the friction ellipse and by ABS. */
void sim_tire_peak_slip(const sim_tire_params *p, double fz, double *kappa_peak, double *slip_y_peak);

/* The largest force each direction can reach at load fz on a road of friction factor
 * mu_road: the peak factors D of the two pure-slip curves (the brush model's mu Fz for
 * both). Combined forces lie inside the ellipse with these semi-axes. */
void sim_tire_peak_force(const sim_tire_params *p, double fz, double mu_road, double *fx_peak,
                         double *fy_peak);


#endif
