/* sim_sb_nurbs: a NURBS curve's value (see sim_sb_nurbs.h). */
#include "sim_sb_nurbs.h"

double sim_sb_nurbs_value(const double *kn, int order, const double *w, const double *v, int n, double u)
{
    int m = n + order; /* knots */
    double N[SIM_SB_NURBS_MAX + 16];
    if (n < 1 || n > SIM_SB_NURBS_MAX || order < 1 || order > 16) return 0;
    for (int i = 0; i < m - 1; i++) N[i] = u >= kn[i] && u < kn[i + 1] ? 1 : 0;
    if (u >= kn[m - 1]) /* the end: the last span that is not empty */
        for (int i = m - 2; i >= 0; i--)
            if (kn[i] < kn[i + 1]) {
                N[i] = 1;
                break;
            }
    for (int p = 1; p < order; p++)
        for (int i = 0; i < m - 1 - p; i++) {
            double a = kn[i + p] > kn[i] ? (u - kn[i]) / (kn[i + p] - kn[i]) * N[i] : 0;
            double b = kn[i + p + 1] > kn[i + 1] ? (kn[i + p + 1] - u) / (kn[i + p + 1] - kn[i + 1]) * N[i + 1] : 0;
            N[i] = a + b;
        }
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        num += N[i] * w[i] * v[i];
        den += N[i] * w[i];
    }
    return den > 0 ? num / den : 0;
}
