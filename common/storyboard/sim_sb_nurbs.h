/* sim_sb_nurbs: a NURBS curve's value (OpenSCENARIO's Nurbs trajectory shape), pure.
 *
 * n control values v[i] with weights w[i], order k (degree k - 1), n + k knots
 * nondecreasing: at parameter u (within the knots kn[k - 1] .. kn[n]) the value is
 * sum R_i(u) v[i], R_i = N_i,k(u) w[i] / sum N_j,k(u) w[j] with the B-spline basis N
 * of Cox and de Boor; at the last knot the last non-empty span counts. The same
 * function gives a point's x, y and (as esmini reads a ControlPoint's time) its time. */
#ifndef SIM_SB_NURBS_H
#define SIM_SB_NURBS_H

#define SIM_SB_NURBS_MAX 64        /* control points at most */

double sim_sb_nurbs_value(const double *kn, int order, const double *w, const double *v, int n, double u);

#endif
