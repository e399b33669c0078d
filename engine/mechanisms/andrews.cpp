// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Andrews' squeezing mechanism with the Hairer-Wanner data (Solving ODEs II §VII.7), as written
// out in Chin 1995 §3.7 (reference/post-stabilization-chin1995.md). Seven rigid bodies in relative
// angles q = (beta, Theta, gamma, Phi, delta, Omega, epsilon) [rad], three loop closures (6 rows),
// a motor torque mom on body 1 and a spring between body 3 and the fixed point C.
//
// Forces: f already contains the velocity-dependent (Coriolis/centrifugal) terms
// -(M' v - 1/2 d(v^T M v)/dq) of the Lagrange equations besides the spring and the drive torque;
// the tests check that split against M(q) by finite differences.
//
// Constraints: every term of every row is a cos(psi) or a sin(psi) with psi a sum of consecutive
// coordinates (beta, beta+Theta, gamma, Phi+delta, delta, Omega+epsilon, epsilon), plus a
// constant. So G, L and d(Gv)/dq follow termwise from one table:
//   term = a trig(psi),  d/dq_j = a trig'(psi) for j in psi,
//   L contribution = a trig''(psi) psi'^2 = -term psi'^2,
//   d(Gv)/dq_j contribution = a trig''(psi) psi' = -term psi'  for j in psi.
//
// Sines and cosines: every evaluation at one q needs the same few (the seven angle sums for g, G,
// L; Theta, gamma, Phi, Omega for M and f), and a step evaluates several functions at each q it
// visits (the dynamics M, G, L, f; PStab M, G, g; the monitor G, g, E). The instance a Workspace
// owns (for_simulation) keeps the last q's values in a TrigMemo, so each q costs one set of
// sincos calls instead of one per function: the same calls on the same arguments, so the values
// are bit-identical to the shared instance's, which computes them every time.
//
// Energy: the model has no gravity, so E = 1/2 v^T M v + 1/2 c0 (l - l0)^2 - mom beta, which is
// conserved because the drive torque is constant.

#include <Eigen/Core>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>

#include "engine/mechanisms/andrews_data.hpp"
#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

// the Hairer-Wanner data
using namespace andrews_data;  // NOLINT(google-build-using-namespace): the file's vocabulary

// coordinate indices, in the order of q; kDof: their number
enum Coordinate : int { kBeta, kTheta, kGamma, kPhi, kDelta, kOmega, kEps, kDof };
constexpr int kRows = 6;  // constraint rows: three loop closures of two each
using Mat7 = Eigen::Matrix<double, kDof, kDof>;

// The seven angle sums psi that occur in the constraint rows; each is q[first] + ... +
// q[first + count - 1]. Their sines and cosines are computed once per evaluation (AngleTrig).
struct AngleSum {
  int first;
  int count;
};
enum Angle { kAngBeta, kAngBetaTheta, kAngGamma, kAngPhiDelta, kAngDelta, kAngOmegaEps, kAngEps };
constexpr int kAngleCount = 7;
constexpr std::array<AngleSum, kAngleCount> kAngles{
    {{kBeta, 1}, {kBeta, 2}, {kGamma, 1}, {kPhi, 2}, {kDelta, 1}, {kOmega, 2}, {kEps, 1}}};

// One term a * trig(psi) of a constraint row.
enum class Trig { kCos, kSin };
struct Term {
  int row;
  double coef;
  Trig trig;
  Angle angle;
};

// clang-format off
constexpr std::array<Term, 22> kTerms{{
    // g1 = rr cos(b) - d cos(b+T) - ss sin(g) - xb
    {0,  kRr, Trig::kCos, kAngBeta}, {0, -kD, Trig::kCos, kAngBetaTheta}, {0, -kSs, Trig::kSin, kAngGamma},
    // g2 = rr sin(b) - d sin(b+T) + ss cos(g) - yb
    {1,  kRr, Trig::kSin, kAngBeta}, {1, -kD, Trig::kSin, kAngBetaTheta}, {1,  kSs, Trig::kCos, kAngGamma},
    // g3 = rr cos(b) - d cos(b+T) - e sin(P+d) - zt cos(d) - xa
    {2,  kRr, Trig::kCos, kAngBeta}, {2, -kD, Trig::kCos, kAngBetaTheta},
    {2,  -kE, Trig::kSin, kAngPhiDelta}, {2, -kZt, Trig::kCos, kAngDelta},
    // g4 = rr sin(b) - d sin(b+T) + e cos(P+d) - zt sin(d) - ya
    {3,  kRr, Trig::kSin, kAngBeta}, {3, -kD, Trig::kSin, kAngBetaTheta},
    {3,   kE, Trig::kCos, kAngPhiDelta}, {3, -kZt, Trig::kSin, kAngDelta},
    // g5 = rr cos(b) - d cos(b+T) - zf cos(O+e) - u sin(e) - xa
    {4,  kRr, Trig::kCos, kAngBeta}, {4, -kD, Trig::kCos, kAngBetaTheta},
    {4, -kZf, Trig::kCos, kAngOmegaEps}, {4, -kU, Trig::kSin, kAngEps},
    // g6 = rr sin(b) - d sin(b+T) - zf sin(O+e) + u cos(e) - ya
    {5,  kRr, Trig::kSin, kAngBeta}, {5, -kD, Trig::kSin, kAngBetaTheta},
    {5, -kZf, Trig::kSin, kAngOmegaEps}, {5,  kU, Trig::kCos, kAngEps},
}};

// constant part of each row
constexpr std::array<double, kRows> kOffsets{-kXb, -kYb, -kXa, -kYa, -kXa, -kYa};
// clang-format on

// sin and cos of the seven angle sums at one q: 7 sincos per evaluation instead of one per term
struct AngleTrig {
  std::array<double, kAngleCount> c;
  std::array<double, kAngleCount> s;
};

// sin and cos of the single coordinates that M (Theta, Phi, Omega) and the spring (gamma) need
struct SingleTrig {
  double cos_theta;
  double sin_theta;
  double cos_gamma;
  double sin_gamma;
  double cos_phi;
  double sin_phi;
  double cos_omega;
  double sin_omega;
};

[[nodiscard]] SingleTrig single_trig(const VecCRef& q) noexcept {
  return {std::cos(q(kTheta)), std::sin(q(kTheta)), std::cos(q(kGamma)), std::sin(q(kGamma)),
          std::cos(q(kPhi)),   std::sin(q(kPhi)),   std::cos(q(kOmega)), std::sin(q(kOmega))};
}

[[nodiscard]] double sum_over(Angle angle, const VecCRef& x) noexcept {
  const AngleSum a = kAngles[static_cast<std::size_t>(angle)];
  double sum = 0.0;
  for (int j = a.first; j < a.first + a.count; ++j) sum += x(j);
  return sum;
}

// d psi/dq is 1 on each coordinate of the angle sum psi and 0 elsewhere, so the q-derivative of
// a term adds the same value in every column of psi: out(row, j) += value for j in psi.
template <class Matrix>
void add_on_angle_columns(Matrix& out, int row, Angle angle, double value) noexcept {
  const AngleSum a = kAngles[static_cast<std::size_t>(angle)];
  for (int j = a.first; j < a.first + a.count; ++j) {
    out(row, j) += value;
  }
}

[[nodiscard]] AngleTrig angle_trig(const VecCRef& q) noexcept {
  AngleTrig t{};
  for (int k = 0; k < kAngleCount; ++k) {
    const double psi = sum_over(static_cast<Angle>(k), q);
    t.c[static_cast<std::size_t>(k)] = std::cos(psi);
    t.s[static_cast<std::size_t>(k)] = std::sin(psi);
  }
  return t;
}

// out = 0, then every term adds weight(term, trig) in its row, on the columns of its angle sum:
// G (weight = a trig'(psi)) and d(G v)/dq (weight = -term psi') have this shape.
// The sums go into a fixed-size local, and the loop over the constant table unrolls, so each
// entry is a few straight-line additions (the term's trig, row and columns folded in) instead of
// a table walk through the caller's run-time strides: the same additions in the same order.
template <class Weight>
void fill_term_columns(const AngleTrig& trig, MatRef out, Weight weight) noexcept {
  Eigen::Matrix<double, kRows, kDof> sum = Eigen::Matrix<double, kRows, kDof>::Zero();
#pragma GCC unroll 32
  for (const Term& term : kTerms) {
    add_on_angle_columns(sum, term.row, term.angle, weight(term, trig));
  }
  out = sum;
}

// Value of a term and its derivative with respect to psi.
struct TermEval {
  double value;  // a trig(psi)
  double slope;  // a trig'(psi)
};

[[nodiscard]] TermEval evaluate(const Term& term, const AngleTrig& t) noexcept {
  const double c = t.c[static_cast<std::size_t>(term.angle)];
  const double s = t.s[static_cast<std::size_t>(term.angle)];
  if (term.trig == Trig::kCos) {
    return {term.coef * c, -term.coef * s};
  }
  return {term.coef * s, term.coef * c};
}

// Spring attachment point D on body 3 relative to the fixed point C, and its gamma-derivative.
struct SpringGeometry {
  double dx;      // xd - xc [m]
  double dy;      // yd - yc [m]
  double dx_dg;   // d xd / d gamma [m]
  double dy_dg;   // d yd / d gamma [m]
  double length;  // |D - C| [m]
};

[[nodiscard]] SpringGeometry spring_geometry(double c, double s) noexcept {
  SpringGeometry sg{};
  sg.dx = kSd * c + kSc * s + kXb - kXc;
  sg.dy = kSd * s - kSc * c + kYb - kYc;
  sg.dx_dg = kSc * c - kSd * s;
  sg.dy_dg = kSd * c + kSc * s;
  sg.length = std::sqrt(sg.dx * sg.dx + sg.dy * sg.dy);
  return sg;
}

// Hairer-Wanner mass matrix (Chin §3.7); only the listed entries are nonzero.
void fill_mass(const SingleTrig& trig, Mat7& m) noexcept {
  const double cos_theta = trig.cos_theta;
  const double sin_phi = trig.sin_phi;
  const double sin_omega = trig.sin_omega;
  const double e_ea = kE - kEa;
  const double zf_fa = kZf - kFa;
  m.setZero();
  m(0, 0) =
      kM1 * kRa * kRa + kM2 * (kRr * kRr - 2.0 * kDa * kRr * cos_theta + kDa * kDa) + kI1 + kI2;
  m(0, 1) = kM2 * (kDa * kDa - kDa * kRr * cos_theta) + kI2;
  m(1, 1) = kM2 * kDa * kDa + kI2;
  m(2, 2) = kM3 * (kSa * kSa + kSb * kSb) + kI3;
  m(3, 3) = kM4 * e_ea * e_ea + kI4;
  m(3, 4) = kM4 * (e_ea * e_ea + kZt * e_ea * sin_phi) + kI4;
  m(4, 4) = kM4 * (kZt * kZt + 2.0 * kZt * e_ea * sin_phi + e_ea * e_ea) +
            kM5 * (kTa * kTa + kTb * kTb) + kI4 + kI5;
  m(5, 5) = kM6 * zf_fa * zf_fa + kI6;
  m(5, 6) = kM6 * (zf_fa * zf_fa - kU * zf_fa * sin_omega) + kI6;
  m(6, 6) = kM6 * (zf_fa * zf_fa - 2.0 * kU * zf_fa * sin_omega + kU * kU) +
            kM7 * (kUa * kUa + kUb * kUb) + kI6 + kI7;
  m(1, 0) = m(0, 1);
  m(4, 3) = m(3, 4);
  m(6, 5) = m(5, 6);
}

// Bitwise equality of q with the memo's key: -0.0 and +0.0 have different sines, and a NaN
// must never match.
[[nodiscard]] bool same_bits(const std::array<double, kDof>& key, const VecCRef& q) noexcept {
  for (int j = 0; j < kDof; ++j) {
    if (std::bit_cast<std::uint64_t>(key[static_cast<std::size_t>(j)]) !=
        std::bit_cast<std::uint64_t>(q(j))) {
      return false;
    }
  }
  return true;
}

void set_key(std::array<double, kDof>& key, const VecCRef& q) noexcept {
  for (int j = 0; j < kDof; ++j) key[static_cast<std::size_t>(j)] = q(j);
}

}  // namespace

// Two independent entries: the angle sums and the single angles are each computed on first use
// at a q (PStab's second pass needs only the sums, the dynamics both).
struct Andrews::TrigMemo {
  std::array<double, kDof> sums_q{};
  bool sums_valid = false;
  AngleTrig sums{};
  std::array<double, kDof> singles_q{};
  bool singles_valid = false;
  SingleTrig singles{};
};

namespace {

[[nodiscard]] AngleTrig sums_at(Andrews::TrigMemo* memo, const VecCRef& q) noexcept {
  if (memo == nullptr) return angle_trig(q);
  if (!memo->sums_valid || !same_bits(memo->sums_q, q)) {
    memo->sums = angle_trig(q);
    set_key(memo->sums_q, q);
    memo->sums_valid = true;
  }
  return memo->sums;
}

[[nodiscard]] SingleTrig singles_at(Andrews::TrigMemo* memo, const VecCRef& q) noexcept {
  if (memo == nullptr) return single_trig(q);
  if (!memo->singles_valid || !same_bits(memo->singles_q, q)) {
    memo->singles = single_trig(q);
    set_key(memo->singles_q, q);
    memo->singles_valid = true;
  }
  return memo->singles;
}

}  // namespace

Andrews::Andrews() noexcept : System(kDof, kDof, kRows) {}
Andrews::~Andrews() = default;

std::unique_ptr<const System> Andrews::for_simulation() const {
  auto own = std::make_unique<Andrews>();
  own->memo_ = std::make_unique<TrigMemo>();
  return own;
}

void Andrews::initial_state(State& out) const {
  // consistent q0 of Hairer-Wanner (Chin §3.7), v0 = 0
  out = State(n_q(), n_v());
  out.q << -0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568;
}

void Andrews::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  Mat7 m;
  fill_mass(singles_at(memo_.get(), q), m);
  out_M = m;
}

void Andrews::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  // spring between D (body 3) and C: F = -c0 (l - l0) / l, force F (D - C) acting at D
  const SingleTrig trig = singles_at(memo_.get(), q);
  const SpringGeometry sg = spring_geometry(trig.cos_gamma, trig.sin_gamma);
  const double spring = -kC0 * (sg.length - kL0) / sg.length;
  const double fx = spring * sg.dx;
  const double fy = spring * sg.dy;

  // Coriolis/centrifugal coefficients of bodies 1-2, 4-5 and 6-7
  const double c12 = kM2 * kDa * kRr * trig.sin_theta;
  const double c45 = kM4 * kZt * (kE - kEa) * trig.cos_phi;
  const double c67 = kM6 * kU * (kZf - kFa) * trig.cos_omega;
  const double beta_d = v(kBeta);
  const double theta_d = v(kTheta);
  const double phi_d = v(kPhi);
  const double delta_d = v(kDelta);
  const double omega_d = v(kOmega);
  const double eps_d = v(kEps);

  out_f(kBeta) = kMom - c12 * theta_d * (theta_d + 2.0 * beta_d);
  out_f(kTheta) = c12 * beta_d * beta_d;
  out_f(kGamma) = fx * sg.dx_dg + fy * sg.dy_dg;
  out_f(kPhi) = c45 * delta_d * delta_d;
  out_f(kDelta) = -c45 * phi_d * (phi_d + 2.0 * delta_d);
  out_f(kOmega) = -c67 * eps_d * eps_d;
  out_f(kEps) = c67 * omega_d * (omega_d + 2.0 * eps_d);
}

void Andrews::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  const AngleTrig trig = sums_at(memo_.get(), q);
  Eigen::Matrix<double, kRows, 1> g;  // a fixed-size local, as in fill_term_columns
  for (int i = 0; i < kRows; ++i) g(i) = kOffsets[static_cast<std::size_t>(i)];
#pragma GCC unroll 32
  for (const Term& term : kTerms) {
    g(term.row) += evaluate(term, trig).value;
  }
  out_g = g;
}

void Andrews::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  fill_term_columns(sums_at(memo_.get(), q), out_G, [](const Term& term, const AngleTrig& trig) {
    return evaluate(term, trig).slope;
  });
}

void Andrews::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  const AngleTrig trig = sums_at(memo_.get(), q);
  Eigen::Matrix<double, kRows, 1> l =
      Eigen::Matrix<double, kRows, 1>::Zero();  // as in fill_term_columns
#pragma GCC unroll 32
  for (const Term& term : kTerms) {
    const double rate = sum_over(term.angle, v);
    l(term.row) -= evaluate(term, trig).value * rate * rate;
  }
  out_L = l;
}

void Andrews::velocity_constraint_jacobian(double /*t*/,
                                           VecCRef q,
                                           VecCRef v,
                                           MatRef out_Gv_q) const noexcept {
  fill_term_columns(sums_at(memo_.get(), q), out_Gv_q,
                    [&v](const Term& term, const AngleTrig& trig) {
                      return -evaluate(term, trig).value * sum_over(term.angle, v);
                    });
}

double Andrews::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const SingleTrig trig = singles_at(memo_.get(), q);
  Mat7 m;
  fill_mass(trig, m);
  double kinetic = 0.0;
  for (int i = 0; i < kDof; ++i) {
    for (int j = 0; j < kDof; ++j) {
      kinetic += 0.5 * v(i) * m(i, j) * v(j);
    }
  }
  const double stretch = spring_geometry(trig.cos_gamma, trig.sin_gamma).length - kL0;
  return kinetic + 0.5 * kC0 * stretch * stretch - kMom * q(kBeta);
}

// ---- iteration-matrix blocks for the implicit methods (system.hpp) --------------------------

bool Andrews::force_jacobians(
    double /*t*/, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept {
  // derivatives of forces() term by term (bd, td, pd, dd, od, ed in the comments: the rates v of
  // beta, Theta, Phi, delta, Omega, epsilon)
  const double c12 = kM2 * kDa * kRr * std::sin(q(kTheta));
  const double c12_q = kM2 * kDa * kRr * std::cos(q(kTheta));
  const double c45 = kM4 * kZt * (kE - kEa) * std::cos(q(kPhi));
  const double c45_q = -kM4 * kZt * (kE - kEa) * std::sin(q(kPhi));
  const double c67 = kM6 * kU * (kZf - kFa) * std::cos(q(kOmega));
  const double c67_q = -kM6 * kU * (kZf - kFa) * std::sin(q(kOmega));
  out_fq.setZero();
  out_fv.setZero();
  // f_beta = mom - c12 td (td + 2 bd),  f_theta = c12 bd^2
  out_fq(kBeta, kTheta) = -c12_q * v(kTheta) * (v(kTheta) + 2.0 * v(kBeta));
  out_fv(kBeta, kBeta) = -2.0 * c12 * v(kTheta);
  out_fv(kBeta, kTheta) = -2.0 * c12 * (v(kTheta) + v(kBeta));
  out_fq(kTheta, kTheta) = c12_q * v(kBeta) * v(kBeta);
  out_fv(kTheta, kBeta) = 2.0 * c12 * v(kBeta);
  // f_gamma = s(l) P with s = -c0 (l - l0)/l, P = dx dx' + dy dy' = l dl/dgamma
  const double c = std::cos(q(kGamma));
  const double sn = std::sin(q(kGamma));
  const SpringGeometry sg = spring_geometry(c, sn);
  const double d2x = -kSd * c - kSc * sn;  // d^2 xd / dgamma^2
  const double d2y = -kSd * sn + kSc * c;
  const double p = sg.dx * sg.dx_dg + sg.dy * sg.dy_dg;
  const double p_g = sg.dx_dg * sg.dx_dg + sg.dy_dg * sg.dy_dg + sg.dx * d2x + sg.dy * d2y;
  const double spring = -kC0 * (sg.length - kL0) / sg.length;
  const double spring_g = -kC0 * kL0 * p / (sg.length * sg.length * sg.length);
  out_fq(kGamma, kGamma) = spring_g * p + spring * p_g;
  // f_phi = c45 dd^2,  f_delta = -c45 pd (pd + 2 dd)
  out_fq(kPhi, kPhi) = c45_q * v(kDelta) * v(kDelta);
  out_fv(kPhi, kDelta) = 2.0 * c45 * v(kDelta);
  out_fq(kDelta, kPhi) = -c45_q * v(kPhi) * (v(kPhi) + 2.0 * v(kDelta));
  out_fv(kDelta, kPhi) = -2.0 * c45 * (v(kPhi) + v(kDelta));
  out_fv(kDelta, kDelta) = -2.0 * c45 * v(kPhi);
  // f_omega = -c67 ed^2,  f_eps = c67 od (od + 2 ed)
  out_fq(kOmega, kOmega) = -c67_q * v(kEps) * v(kEps);
  out_fv(kOmega, kEps) = -2.0 * c67 * v(kEps);
  out_fq(kEps, kOmega) = c67_q * v(kOmega) * (v(kOmega) + 2.0 * v(kEps));
  out_fv(kEps, kOmega) = 2.0 * c67 * (v(kOmega) + v(kEps));
  out_fv(kEps, kEps) = 2.0 * c67 * v(kOmega);
  return true;
}

bool Andrews::constraint_force_jacobian(double /*t*/,
                                        VecCRef q,
                                        VecCRef lambda,
                                        MatRef out_H) const noexcept {
  // (G^T l)_j = sum over terms with j in psi of l_row a trig'(psi); d/dq_k for k in psi adds
  // l_row a trig''(psi) = -l_row * value
  const AngleTrig trig = sums_at(memo_.get(), q);
  out_H.setZero();
  for (const Term& term : kTerms) {
    const double d = -lambda(term.row) * evaluate(term, trig).value;
    const AngleSum a = kAngles[static_cast<std::size_t>(term.angle)];
    for (int j = a.first; j < a.first + a.count; ++j) {
      add_on_angle_columns(out_H, j, term.angle, d);
    }
  }
  return true;
}

bool Andrews::inertia_jacobian(double /*t*/, VecCRef q, VecCRef a, MatRef out_K) const noexcept {
  // M depends on Theta (entries 00, 01), Phi (34, 44) and Omega (56, 66) only (fill_mass)
  const double s_theta = std::sin(q(kTheta));
  const double c_phi = std::cos(q(kPhi));
  const double c_omega = std::cos(q(kOmega));
  const double m00_t = 2.0 * kM2 * kDa * kRr * s_theta;
  const double m01_t = kM2 * kDa * kRr * s_theta;
  const double e_ea = kE - kEa;
  const double m34_p = kM4 * kZt * e_ea * c_phi;
  const double m44_p = 2.0 * kM4 * kZt * e_ea * c_phi;
  const double zf_fa = kZf - kFa;
  const double m56_o = -kM6 * kU * zf_fa * c_omega;
  const double m66_o = -2.0 * kM6 * kU * zf_fa * c_omega;
  out_K.setZero();
  out_K(0, kTheta) = m00_t * a(0) + m01_t * a(1);
  out_K(1, kTheta) = m01_t * a(0);
  out_K(3, kPhi) = m34_p * a(4);
  out_K(4, kPhi) = m34_p * a(3) + m44_p * a(4);
  out_K(5, kOmega) = m56_o * a(6);
  out_K(6, kOmega) = m56_o * a(5) + m66_o * a(6);
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// The bodies' points in the absolute angles theta1 = beta, theta2 = beta + Theta, theta3 = gamma,
// theta4 = Phi + delta, theta5 = delta, theta6 = Omega + epsilon, theta7 = epsilon (Hoitink 2011
// §4.5, reference/gsssss-hoitink2011.md; the body layout written out in configs/andrews.yaml):
//   0 O (fixed), 1 P = rr e(theta1), 2 E of K2 = P - d e(theta2);
//   3 B (fixed), 4 E of K3 = B + ss (sin gamma, -cos gamma), 5 D = B + R(gamma) (sd, -sc);
//   6 C (fixed, the spring's other end);
//   7 A (fixed), 8 F = A + zt e(delta), 9 E of K4 = F + e (sin theta4, -cos theta4);
//   10 G = A + u (sin eps, -cos eps), 11 E of K6 = G + zf e(theta6).
// The loop closures g1..g6 are exactly E2 - E3, E2 - E4, E2 - E6 (the term table above), so the
// four E points coincide on the constraint manifold. Bars: the links of K1 .. K7 between their
// joints, and the spring D-C.
namespace {
constexpr std::array<JointLink, 10> kAndrewsBars{
    {{0, 1}, {1, 2}, {3, 4}, {3, 5}, {4, 5}, {5, 6}, {7, 8}, {8, 9}, {7, 10}, {10, 11}}};
constexpr std::array<int, 4> kAndrewsGround{0, 3, 6, 7};
}  // namespace

int Andrews::n_joint_points() const noexcept {
  return 12;
}
std::span<const JointLink> Andrews::joint_links() const noexcept {
  return kAndrewsBars;
}
std::span<const int> Andrews::ground_points() const noexcept {
  return kAndrewsGround;
}
void Andrews::joint_points(double /*t*/, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept {
  const auto at = [](double x, double y) { return Eigen::Vector3d(x, y, 0.0); };
  const auto dir = [](double angle) {
    return Eigen::Vector3d(std::cos(angle), std::sin(angle), 0.0);
  };
  const double th1 = q(kBeta);
  const double th2 = q(kBeta) + q(kTheta);
  const double gamma = q(kGamma);
  const double th4 = q(kPhi) + q(kDelta);
  const double delta = q(kDelta);
  const double th6 = q(kOmega) + q(kEps);
  const double eps = q(kEps);
  out[0] = at(0.0, 0.0);
  out[1] = kRr * dir(th1);
  out[2] = out[1] - kD * dir(th2);
  out[3] = at(kXb, kYb);
  out[4] = out[3] + at(kSs * std::sin(gamma), -kSs * std::cos(gamma));
  // R(gamma) (sd, -sc)
  out[5] = out[3] + at(kSd * std::cos(gamma) + kSc * std::sin(gamma),
                       kSd * std::sin(gamma) - kSc * std::cos(gamma));
  out[6] = at(kXc, kYc);
  out[7] = at(kXa, kYa);
  out[8] = out[7] + kZt * dir(delta);
  out[9] = out[8] + at(kE * std::sin(th4), -kE * std::cos(th4));
  out[10] = out[7] + at(kU * std::sin(eps), -kU * std::cos(eps));
  out[11] = out[10] + kZf * dir(th6);
}

}  // namespace rtmb::detail
