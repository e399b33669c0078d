// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Planar Euler-Bernoulli beam in Shabana's floating-frame-of-reference formulation, as Chin 1995
// ch. 5 uses it for the deformable slider-crank (reference post-stabilization-chin1995.md §3.12,
// "FE model"). Coordinates q = (R1, R2, theta, q_f): the world position R of the body frame's
// origin and its angle theta (the reference coordinates first), then the elastic coordinates q_f.
// A material point at abscissa x in [0, L] of the undeformed axis sits, in the body frame, at
//     u(x) = u0(x) + S(x) q_f,   u0 = (x, 0),
// and in the world at r = R + A(theta) u. S is assembled from `elements` equal beam elements with
// the standard shape function of §3.12 (axial linear, transverse Hermite cubic, xi = x / l_j):
//     S_j = [[1-xi, 0, 0, xi, 0, 0], [0, 1-3xi^2+2xi^3, l_j(xi-2xi^2+xi^3), 0, 3xi^2-2xi^3,
//            l_j(xi^3-xi^2)]]
// over each element's nodal coordinates (axial, transverse, slope at each node), rigidly
// connected (shared nodes, the Boolean maps B^j of §3.12), minus the coordinates the boundary
// conditions remove (B_c). The supports also define the body frame (Shabana's reference
// conditions): a clamped beam's frame is tangent at x = 0; a simply supported beam's x-axis joins
// its end points (the chord), Chin's q^1_1 = q^1_2 = q^2_5 = 0.
//
// With r' = L(q) v, L = [I, A I~ u, A S] (I~ = [[0, -1], [1, 0]], dA/dtheta = A I~), the kinetic
// energy T = 1/2 int rho r'.r' dV gives M = int rho L^T L dV, whose blocks (§3.12's m_RR, m_Rtheta,
// m_Rf, m_thetatheta, m_thetaf, m_ff) are, with the invariants int rho u0, S_bar = int rho S,
// m_ff = int rho S^T S, s0 = int rho S^T u0, w0 = int rho S^T I~ u0, S~ = int rho S^T I~ S:
//     m_RR = m I,  m_Rtheta = A I~ (int rho u0 + S_bar q_f),  m_Rf = A S_bar,
//     m_thetatheta = int rho u0.u0 + 2 s0.q_f + q_f^T m_ff q_f,  m_thetaf^T = w0 + S~ q_f.
// The quadratic-velocity vector follows from M v' + int rho L^T L' v dV = Q with
// L' v = A (-theta'^2 u + 2 theta' I~ S q_f') (r'' = L v' + L' v):
//     Q_v = -int rho L^T L' v dV
//         = ( A (theta'^2 (int rho u0 + S_bar q_f) - 2 theta' I~ S_bar q_f'),
//             -2 theta' (s0 + m_ff q_f).q_f',
//             theta'^2 (s0 + m_ff q_f) - 2 theta' S~ q_f' )
// (Shabana, Dynamics of Multibody Systems, the planar floating-frame equations; here derived
// from T as above and checked against finite differences of T in the test). The strain energy
// U = 1/2 int (E a u'^2 + E I v''^2) dx of §3.12 gives K_ff = sum B_c^T B^jT K^j B^j B_c. Every
// integral is evaluated by 4-point Gauss-Legendre quadrature per element, exact for these
// polynomials (degree <= 6).
//
// Construction validates and precomputes (allocates); every evaluation is allocation-free and
// RT-safe.

#include <Eigen/Core>
#include <array>
#include <string_view>
#include <vector>

#include "rtmb/types.hpp"

namespace rtmb {

/// Most elements a beam may have (FloatingFrameBeamSpec::elements): a bound on setup work and on
/// the dense M block, far above any use (the sparse-path benchmark has 200).
inline constexpr int kMaxBeamElements = 1000;

enum class BeamSupport {
  kClamped,          ///< u = v = v' = 0 at x = 0 (a cantilever in its body frame)
  kSimplySupported,  ///< u = v = 0 at x = 0, v = 0 at x = L (Chin §3.12)
};

[[nodiscard]] std::string_view to_string(BeamSupport support) noexcept;

struct FloatingFrameBeamSpec {
  double length = 1.0;          ///< L, > 0
  double youngs_modulus = 0.0;  ///< E, > 0
  double density = 0.0;         ///< rho (mass per volume), > 0
  double area = 0.0;            ///< section area a, > 0
  double second_moment = 0.0;   ///< I of the section about its neutral axis, > 0
  int elements = 2;             ///< number of equal elements, >= 1
  BeamSupport support = BeamSupport::kSimplySupported;
};

/// Where a body point's shape functions live: its element, the abscissa within it and, for each
/// of the element's six nodal coordinates, the elastic coordinate it is (-1: removed by a support).
struct BeamStation {
  int element = 0;
  double x = 0.0;   ///< abscissa on the undeformed axis, in [0, L]
  double xi = 0.0;  ///< x / l_j within the element, in [0, 1]
  Eigen::Matrix<double, 2, 6> shape = Eigen::Matrix<double, 2, 6>::Zero();  ///< S_j(xi)
  /// d/dx of S_j's transverse row: the slope w'(x) of the elastic deflection per nodal
  /// coordinate, the cross-section's rotation relative to the frame (small deformation).
  Eigen::Matrix<double, 1, 6> slope = Eigen::Matrix<double, 1, 6>::Zero();
  std::array<int, 6> index{};
};

/// Per nodal coordinate 3 k + c (node k = 0 .. elements at x = k L / elements; component c:
/// 0 axial, 1 transverse, 2 slope) its elastic coordinate, -1 when the support removes it: the
/// layout of FloatingFrameBeam::elastic_index without building the beam's matrices. Setup-only.
[[nodiscard]] std::vector<int> beam_elastic_indices(int elements, BeamSupport support);

class FloatingFrameBeam {
 public:
  /// Throws std::invalid_argument naming the offending value.
  explicit FloatingFrameBeam(const FloatingFrameBeamSpec& spec);

  [[nodiscard]] const FloatingFrameBeamSpec& spec() const noexcept { return spec_; }
  [[nodiscard]] int n_elastic() const noexcept { return static_cast<int>(m_ff_.rows()); }
  /// 3 + n_elastic(): (R1, R2, theta, q_f).
  [[nodiscard]] int n_coordinates() const noexcept { return 3 + n_elastic(); }
  [[nodiscard]] double mass() const noexcept { return mass_; }
  /// K_ff, n_elastic() square.
  [[nodiscard]] const Mat& stiffness() const noexcept { return k_ff_; }
  /// The nodal coordinate (node k, component c: 0 axial, 1 transverse, 2 slope) as an elastic
  /// coordinate index, -1 when a support removes it.
  [[nodiscard]] int elastic_index(int node, int component) const noexcept;

  /// The shape functions at abscissa x in [0, L] (clamped to it). Setup-only callers may keep it.
  [[nodiscard]] BeamStation station(double x) const noexcept;
  /// S(x) q_f: the elastic displacement (axial, transverse) in the body frame at a station.
  [[nodiscard]] Eigen::Vector2d displacement(const BeamStation& s, VecCRef q_f) const noexcept;
  /// w'(x) = S_t'(x) q_f: the slope of the elastic deflection at a station, the rotation of the
  /// cross-section there relative to the frame (linear in q_f, as the model's small deformation).
  [[nodiscard]] double slope(const BeamStation& s, VecCRef q_f) const noexcept;

  // The evaluations below take the beam's own coordinate blocks q, v (size n_coordinates())
  // and write n_coordinates()-sized blocks.
  /// M(q), the blocks above; out_M is n_coordinates() square.
  void mass_matrix(VecCRef q, MatRef out_M) const noexcept;
  /// The entries of mass_matrix(q) on and below the diagonal, column by column (the CSC order of
  /// a lower-triangular pattern), n (n + 1) / 2 of them with n = n_coordinates().
  void mass_lower(VecCRef q, double* out) const noexcept;
  /// K = d(M(q) a)/dq at fixed a (the implicit methods' inertia block, System::inertia_jacobian),
  /// n_coordinates() square: M depends on theta and q_f only, so K's R columns are zero.
  void inertia_jacobian(VecCRef q, VecCRef a, MatRef out_K) const noexcept;
  /// Q_v(q, v), the quadratic-velocity vector above.
  void quadratic_velocity(VecCRef q, VecCRef v, VecRef out) const noexcept;
  /// Generalized force of a uniform field g (per unit mass, world) and minus the elastic force:
  /// out = L^T int rho g dV - (0, 0, 0, K_ff q_f).
  void applied_forces(VecCRef q, const Eigen::Vector2d& g, VecRef out) const noexcept;
  /// Everything but M q'': Q_v + applied_forces(q, g).
  void generalized_forces(VecCRef q,
                          VecCRef v,
                          const Eigen::Vector2d& g,
                          VecRef out) const noexcept;
  [[nodiscard]] double kinetic_energy(VecCRef q, VecCRef v) const noexcept;
  /// U = q_f^T K_ff q_f / 2.
  [[nodiscard]] double strain_energy(VecCRef q) const noexcept;
  /// -g . int rho r dV: the potential of the uniform field g.
  [[nodiscard]] double field_potential(VecCRef q, const Eigen::Vector2d& g) const noexcept;

  /// World position R + A u of the body point at the station.
  [[nodiscard]] Eigen::Vector2d point_position(VecCRef q, const BeamStation& s) const noexcept;
  /// Its velocity r' = R' + theta' A I~ u + A S q_f' (the Jacobian below times v).
  [[nodiscard]] Eigen::Vector2d point_velocity(VecCRef q,
                                               VecCRef v,
                                               const BeamStation& s) const noexcept;
  /// Its Jacobian d r / d q = [I, A I~ u, A S], 2 x n_coordinates().
  void point_jacobian(VecCRef q, const BeamStation& s, MatRef out) const noexcept;
  /// out += J^T F: the generalized force of a world force F at the station's material point
  /// (virtual work F . dr with dr = J dq; J the point Jacobian above), without forming J.
  void add_point_force(VecCRef q,
                       const BeamStation& s,
                       const Eigen::Vector2d& force,
                       VecRef out) const noexcept;
  /// d(J v)/dq at fixed v, 2 x n_coordinates(): the theta column A (-theta' u + I~ S q_f'), the
  /// elastic columns theta' A I~ S (the R columns are zero).
  void point_velocity_jacobian(VecCRef q,
                               VecCRef v,
                               const BeamStation& s,
                               MatRef out) const noexcept;
  /// L'(q, v) v at the point: r'' = J v' + this, A (-theta'^2 u + 2 theta' I~ S q_f').
  [[nodiscard]] Eigen::Vector2d point_curvature(VecCRef q,
                                                VecCRef v,
                                                const BeamStation& s) const noexcept;

 private:
  void add_applied_forces(VecCRef q, const Eigen::Vector2d& g, VecRef out) const noexcept;

  FloatingFrameBeamSpec spec_;
  std::vector<int> index_;  // per nodal coordinate 3 k + c: its elastic index, -1 removed
  double mass_ = 0.0;
  Eigen::Vector2d first_moment_ = Eigen::Vector2d::Zero();  // int rho u0
  double second_moment0_ = 0.0;                             // int rho u0.u0
  Mat s_bar_;                                               // int rho S, 2 x nf
  Mat m_ff_;                                                // int rho S^T S
  Vec s0_;                                                  // int rho S^T u0
  Vec w0_;                                                  // int rho S^T I~ u0
  Mat s_tilde_;                                             // int rho S^T I~ S (skew)
  Mat k_ff_;                                                // K_ff
};

}  // namespace rtmb
