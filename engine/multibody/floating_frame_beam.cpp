// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Floating-frame Euler-Bernoulli beam (engine/multibody/floating_frame_beam.hpp; Chin 1995 §3.12,
// reference post-stabilization-chin1995.md). The products with the dynamic-size invariants are
// written straight into the caller's output blocks (Eigen's noalias gemv) or done in loops, so no
// evaluation allocates.
#include "engine/multibody/floating_frame_beam.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rtmb {

namespace {

// 4-point Gauss-Legendre rule on [0, 1]: exact to degree 7 (the mass integrands have degree <= 6)
constexpr std::array<double, 4> kGaussPoint{0.06943184420297371, 0.33000947820757187,
                                            0.66999052179242813, 0.93056815579702629};
constexpr std::array<double, 4> kGaussWeight{0.17392742256872693, 0.32607257743127307,
                                             0.32607257743127307, 0.17392742256872693};

// Nodal coordinates per node: axial, transverse, slope (§3.12's element layout)
constexpr int kPerNode = 3;
constexpr int kMaxElements = kMaxBeamElements;

// S_j(xi) of §3.12: axial linear, transverse Hermite cubic
Eigen::Matrix<double, 2, 6> element_shape(double xi, double l) noexcept {
  const double x2 = xi * xi;
  const double x3 = x2 * xi;
  Eigen::Matrix<double, 2, 6> s;
  s << 1.0 - xi, 0.0, 0.0, xi, 0.0, 0.0,  //
      0.0, 1.0 - 3.0 * x2 + 2.0 * x3, l * (xi - 2.0 * x2 + x3), 0.0, 3.0 * x2 - 2.0 * x3,
      l * (x3 - x2);
  return s;
}

// 2D rotation A(theta)
Eigen::Matrix2d frame_rotation(double theta) noexcept {
  const double c = std::cos(theta);
  const double s = std::sin(theta);
  Eigen::Matrix2d a;
  a << c, -s, s, c;
  return a;
}

// I~ u = (-u_y, u_x): the 90-degree turn, dA/dtheta = A I~
Eigen::Vector2d turn(const Eigen::Vector2d& u) noexcept {
  return {-u.y(), u.x()};
}

// a^T M b without a temporary
double bilinear(const Mat& m, VecCRef a, VecCRef b) noexcept {
  double sum = 0.0;
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    double col = 0.0;
    for (Eigen::Index i = 0; i < m.rows(); ++i) col += a(i) * m(i, j);
    sum += col * b(j);
  }
  return sum;
}

// S_bar x (2 x nf times nf) without a temporary
Eigen::Vector2d times(const Mat& s_bar, VecCRef x) noexcept {
  Eigen::Vector2d out = Eigen::Vector2d::Zero();
  for (Eigen::Index k = 0; k < s_bar.cols(); ++k) out += s_bar.col(k) * x(k);
  return out;
}

void require_beam(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("beam: " + what);
}

}  // namespace

std::string_view to_string(BeamSupport support) noexcept {
  return support == BeamSupport::kClamped ? "clamped" : "simply_supported";
}

std::vector<int> beam_elastic_indices(int elements, BeamSupport support) {
  // B_c: which nodal coordinates the supports remove (the body frame's reference conditions)
  const int n_nodes = std::max(elements, 0) + 1;
  std::vector<bool> removed(static_cast<std::size_t>(kPerNode * n_nodes), false);
  removed[0] = removed[1] = true;  // u(0) = v(0) = 0
  if (support == BeamSupport::kClamped) {
    removed[2] = true;  // v'(0) = 0
  } else {
    removed[static_cast<std::size_t>(kPerNode * (n_nodes - 1) + 1)] = true;  // v(L) = 0
  }
  std::vector<int> index(removed.size(), -1);
  int nf = 0;
  for (std::size_t k = 0; k < removed.size(); ++k) {
    if (!removed[k]) index[k] = nf++;
  }
  return index;
}

FloatingFrameBeam::FloatingFrameBeam(const FloatingFrameBeamSpec& spec) : spec_(spec) {
  const auto positive = [](double x) { return std::isfinite(x) && x > 0.0; };
  require_beam(positive(spec.length), "length must be finite and > 0");
  require_beam(positive(spec.youngs_modulus), "youngs_modulus must be finite and > 0");
  require_beam(positive(spec.density), "density must be finite and > 0");
  require_beam(positive(spec.area), "area must be finite and > 0");
  require_beam(positive(spec.second_moment), "second_moment must be finite and > 0");
  require_beam(spec.elements >= 1 && spec.elements <= kMaxElements,
               "elements must be in [1, " + std::to_string(kMaxElements) + "]");

  index_ = beam_elastic_indices(spec.elements, spec.support);
  const auto nf =
      static_cast<int>(std::count_if(index_.begin(), index_.end(), [](int i) { return i >= 0; }));

  s_bar_ = Mat::Zero(2, nf);
  m_ff_ = Mat::Zero(nf, nf);
  s0_ = Vec::Zero(nf);
  w0_ = Vec::Zero(nf);
  s_tilde_ = Mat::Zero(nf, nf);
  k_ff_ = Mat::Zero(nf, nf);
  const double l = spec.length / spec.elements;
  const double ea = spec.youngs_modulus * spec.area;
  const double ei = spec.youngs_modulus * spec.second_moment;
  for (int j = 0; j < spec.elements; ++j) {
    std::array<int, 6> idx{};
    for (int c = 0; c < 6; ++c) idx[static_cast<std::size_t>(c)] = index_[kPerNode * j + c];
    for (std::size_t g = 0; g < kGaussPoint.size(); ++g) {
      const double xi = kGaussPoint[g];
      const double x = (j + xi) * l;
      const double w = spec.density * spec.area * l * kGaussWeight[g];
      const Eigen::Matrix<double, 2, 6> s = element_shape(xi, l);
      mass_ += w;
      first_moment_.x() += w * x;
      second_moment0_ += w * x * x;
      // strain-energy density of §3.12: E a u'^2 + E I v''^2, u' and v'' per nodal coordinate
      Eigen::Matrix<double, 1, 6> du;
      du << -1.0 / l, 0.0, 0.0, 1.0 / l, 0.0, 0.0;
      Eigen::Matrix<double, 1, 6> ddv;
      ddv << 0.0, (12.0 * xi - 6.0) / (l * l), (6.0 * xi - 4.0) / l, 0.0,
          (6.0 - 12.0 * xi) / (l * l), (6.0 * xi - 2.0) / l;
      const double wk = l * kGaussWeight[g];
      for (int a = 0; a < 6; ++a) {
        const int ia = idx[static_cast<std::size_t>(a)];
        if (ia < 0) continue;
        s_bar_.col(ia) += w * s.col(a);
        s0_(ia) += w * s(0, a) * x;  // S^T u0, u0 = (x, 0)
        w0_(ia) += w * s(1, a) * x;  // S^T I~ u0, I~ u0 = (0, x)
        for (int b = 0; b < 6; ++b) {
          const int ib = idx[static_cast<std::size_t>(b)];
          if (ib < 0) continue;
          m_ff_(ia, ib) += w * s.col(a).dot(s.col(b));
          s_tilde_(ia, ib) += w * s.col(a).dot(turn(s.col(b)));
          k_ff_(ia, ib) += wk * (ea * du(a) * du(b) + ei * ddv(a) * ddv(b));
        }
      }
    }
  }
}

int FloatingFrameBeam::elastic_index(int node, int component) const noexcept {
  if (node < 0 || node > spec_.elements || component < 0 || component >= kPerNode) return -1;
  return index_[static_cast<std::size_t>(kPerNode * node + component)];
}

BeamStation FloatingFrameBeam::station(double x) const noexcept {
  BeamStation s;
  const double l = spec_.length / spec_.elements;
  s.x = std::fmin(std::fmax(x, 0.0), spec_.length);
  s.element = std::min(static_cast<int>(std::floor(s.x / l)), spec_.elements - 1);
  s.xi = s.x / l - s.element;
  s.shape = element_shape(s.xi, l);
  // d/dx of the transverse Hermite row (1 - 3 xi^2 + 2 xi^3, l (xi - 2 xi^2 + xi^3),
  // 3 xi^2 - 2 xi^3, l (xi^3 - xi^2)) with d/dx = (1/l) d/dxi
  const double xi = s.xi;
  s.slope << 0.0, 6.0 * (xi * xi - xi) / l, 1.0 - 4.0 * xi + 3.0 * xi * xi, 0.0,
      6.0 * (xi - xi * xi) / l, 3.0 * xi * xi - 2.0 * xi;
  for (int c = 0; c < 6; ++c) {
    s.index[static_cast<std::size_t>(c)] = index_[kPerNode * s.element + c];
  }
  return s;
}

Eigen::Vector2d FloatingFrameBeam::displacement(const BeamStation& s, VecCRef q_f) const noexcept {
  Eigen::Vector2d d = Eigen::Vector2d::Zero();
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) d += s.shape.col(c) * q_f(i);
  }
  return d;
}

double FloatingFrameBeam::slope(const BeamStation& s, VecCRef q_f) const noexcept {
  double w = 0.0;
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) w += s.slope(c) * q_f(i);
  }
  return w;
}

void FloatingFrameBeam::mass_matrix(VecCRef q, MatRef out_M) const noexcept {
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  out_M.setZero();
  out_M(0, 0) = out_M(1, 1) = mass_;
  // m_Rtheta = A I~ (int rho u0 + S_bar q_f)
  const Eigen::Vector2d r_theta = a * turn(first_moment_ + times(s_bar_, q_f));
  out_M.block<2, 1>(0, 2) = r_theta;
  out_M.block<1, 2>(2, 0) = r_theta.transpose();
  // m_Rf = A S_bar
  for (int k = 0; k < nf; ++k) out_M.block<2, 1>(0, 3 + k) = a * s_bar_.col(k);
  out_M.block(3, 0, nf, 2) = out_M.block(0, 3, 2, nf).transpose();
  // m_thetatheta = int rho u0.u0 + 2 s0.q_f + q_f^T m_ff q_f
  out_M(2, 2) = second_moment0_ + 2.0 * s0_.dot(q_f) + bilinear(m_ff_, q_f, q_f);
  // m_thetaf^T = w0 + S~ q_f
  out_M.col(2).segment(3, nf).noalias() = s_tilde_ * q_f;
  out_M.col(2).segment(3, nf) += w0_;
  out_M.row(2).segment(3, nf) = out_M.col(2).segment(3, nf).transpose();
  out_M.block(3, 3, nf, nf) = m_ff_;
}

void FloatingFrameBeam::inertia_jacobian(VecCRef q, VecCRef a, MatRef out_K) const noexcept {
  // M a by mass_matrix's blocks, a = (a_R, a_theta, a_f), c = int rho u0 + S_bar q_f:
  //   R rows      m a_R + A I~ c a_theta + A S_bar a_f
  //   theta row   (A I~ c).a_R + m_thetatheta(q_f) a_theta + (w0 + S~ q_f).a_f
  //   f rows      S_bar^T A^T a_R + (w0 + S~ q_f) a_theta + m_ff a_f
  // differentiated with dA/dtheta = A I~ and I~ I~ = -1 (M depends on theta and q_f only):
  //   d/dtheta    R rows -A c a_theta + A I~ S_bar a_f;  theta row -(A c).a_R;
  //               f rows (A I~ S_bar)^T a_R
  //   d/dq_f      R rows a_theta A I~ S_bar;  theta row (A I~ S_bar)^T a_R
  //               + 2 a_theta (s0 + m_ff q_f) - S~ a_f (S~ is skew: d(a_f.S~ q_f)/dq_f = S~^T a_f);
  //               f rows a_theta S~
  // Checked against central differences of mass_matrix(q) a (floating_frame_beam_test.cpp).
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const auto a_f = a.tail(nf);
  const Eigen::Vector2d a_r = a.head<2>();
  const double a_theta = a(2);
  const Eigen::Matrix2d rot = frame_rotation(q(2));
  const Eigen::Vector2d ac = rot * (first_moment_ + times(s_bar_, q_f));
  out_K.setZero();
  out_K.block<2, 1>(0, 2) = -a_theta * ac + rot * turn(times(s_bar_, a_f));
  out_K(2, 2) = -ac.dot(a_r);
  for (int k = 0; k < nf; ++k) {
    const Eigen::Vector2d column = rot * turn(s_bar_.col(k));  // (A I~ S_bar)_k
    out_K.block<2, 1>(0, 3 + k) = a_theta * column;
    out_K(3 + k, 2) = column.dot(a_r);
    out_K(2, 3 + k) = column.dot(a_r) + 2.0 * a_theta * (s0_(k) + m_ff_.row(k).dot(q_f)) -
                      s_tilde_.row(k).dot(a_f);
  }
  out_K.block(3, 3, nf, nf) = a_theta * s_tilde_;
}

void FloatingFrameBeam::mass_lower(VecCRef q, double* out) const noexcept {
  // mass_matrix's entries on and below the diagonal, column by column (a sparse lower pattern's
  // CSC order): column 0 (m, 0, m_Rtheta_x, (A S_bar)_x), column 1 (m, m_Rtheta_y, (A S_bar)_y),
  // column 2 (m_thetatheta, m_thetaf), then the lower columns of m_ff
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d r_theta = a * turn(first_moment_ + times(s_bar_, q_f));
  for (int row = 0; row < 2; ++row) {
    *out++ = mass_;
    if (row == 0) *out++ = 0.0;
    *out++ = r_theta(row);
    for (int k = 0; k < nf; ++k) *out++ = (a * s_bar_.col(k))(row);
  }
  *out++ = second_moment0_ + 2.0 * s0_.dot(q_f) + bilinear(m_ff_, q_f, q_f);
  for (int k = 0; k < nf; ++k) *out++ = s_tilde_.row(k).dot(q_f) + w0_(k);
  for (int c = 0; c < nf; ++c) {
    for (int r = c; r < nf; ++r) *out++ = m_ff_(r, c);
  }
}

void FloatingFrameBeam::quadratic_velocity(VecCRef q, VecCRef v, VecRef out) const noexcept {
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const auto qd_f = v.tail(nf);
  const double w = v(2);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d u_int = first_moment_ + times(s_bar_, q_f);
  // R: A (theta'^2 int rho u - 2 theta' I~ S_bar q_f')
  out.head<2>() = a * (w * w * u_int - 2.0 * w * turn(times(s_bar_, qd_f)));
  // f: theta'^2 (s0 + m_ff q_f) - 2 theta' S~ q_f'; theta: -2 theta' (s0 + m_ff q_f).q_f'
  auto f = out.tail(nf);
  f.noalias() = m_ff_ * q_f;
  f += s0_;
  out(2) = -2.0 * w * f.dot(qd_f);
  f *= w * w;
  f.noalias() -= (2.0 * w) * (s_tilde_ * qd_f);
}

void FloatingFrameBeam::add_applied_forces(VecCRef q,
                                           const Eigen::Vector2d& g,
                                           VecRef out) const noexcept {
  // L^T int rho g dV - (0, K_ff q_f), L = [I, A I~ u, A S]
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  out.head<2>() += mass_ * g;
  out(2) += (a * turn(first_moment_ + times(s_bar_, q_f))).dot(g);
  const Eigen::Vector2d g_body = a.transpose() * g;
  auto f = out.tail(nf);
  f.noalias() += s_bar_.transpose() * g_body;
  f.noalias() -= k_ff_ * q_f;
}

void FloatingFrameBeam::applied_forces(VecCRef q,
                                       const Eigen::Vector2d& g,
                                       VecRef out) const noexcept {
  out.setZero();
  add_applied_forces(q, g, out);
}

void FloatingFrameBeam::generalized_forces(VecCRef q,
                                           VecCRef v,
                                           const Eigen::Vector2d& g,
                                           VecRef out) const noexcept {
  quadratic_velocity(q, v, out);
  add_applied_forces(q, g, out);
}

double FloatingFrameBeam::kinetic_energy(VecCRef q, VecCRef v) const noexcept {
  // T = v^T M v / 2 by blocks, without forming M
  const int nf = n_elastic();
  const auto q_f = q.tail(nf);
  const auto qd_f = v.tail(nf);
  const Eigen::Vector2d rd = v.head<2>();
  const double w = v(2);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const double m_tt = second_moment0_ + 2.0 * s0_.dot(q_f) + bilinear(m_ff_, q_f, q_f);
  const double m_tf = w0_.dot(qd_f) + bilinear(s_tilde_, qd_f, q_f);
  return 0.5 * (mass_ * rd.squaredNorm() +
                2.0 * w * rd.dot(a * turn(first_moment_ + times(s_bar_, q_f))) +
                2.0 * rd.dot(a * times(s_bar_, qd_f)) + w * w * m_tt + 2.0 * w * m_tf +
                bilinear(m_ff_, qd_f, qd_f));
}

double FloatingFrameBeam::strain_energy(VecCRef q) const noexcept {
  const auto q_f = q.tail(n_elastic());
  return 0.5 * bilinear(k_ff_, q_f, q_f);
}

double FloatingFrameBeam::field_potential(VecCRef q, const Eigen::Vector2d& g) const noexcept {
  const auto q_f = q.tail(n_elastic());
  const Eigen::Vector2d r_int =
      mass_ * q.head<2>() + frame_rotation(q(2)) * (first_moment_ + times(s_bar_, q_f));
  return -g.dot(r_int);
}

Eigen::Vector2d FloatingFrameBeam::point_position(VecCRef q, const BeamStation& s) const noexcept {
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(n_elastic()));
  return q.head<2>() + frame_rotation(q(2)) * u;
}

Eigen::Vector2d FloatingFrameBeam::point_velocity(VecCRef q,
                                                  VecCRef v,
                                                  const BeamStation& s) const noexcept {
  const int nf = n_elastic();
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(nf));
  return v.head<2>() + a * (v(2) * turn(u) + displacement(s, v.tail(nf)));
}

void FloatingFrameBeam::point_jacobian(VecCRef q, const BeamStation& s, MatRef out) const noexcept {
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(n_elastic()));
  out.setZero();
  out(0, 0) = out(1, 1) = 1.0;
  out.col(2) = a * turn(u);
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) out.col(3 + i) += a * s.shape.col(c);
  }
}

void FloatingFrameBeam::add_point_force(VecCRef q,
                                        const BeamStation& s,
                                        const Eigen::Vector2d& force,
                                        VecRef out) const noexcept {
  // J^T F with J = [I, A I~ u, A S] (point_jacobian's columns)
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(n_elastic()));
  out.head<2>() += force;
  out(2) += (a * turn(u)).dot(force);
  const Eigen::Vector2d body_force = a.transpose() * force;  // (A S_c).F = S_c.(A^T F)
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) out(3 + i) += s.shape.col(c).dot(body_force);
  }
}

void FloatingFrameBeam::point_velocity_jacobian(VecCRef q,
                                                VecCRef v,
                                                const BeamStation& s,
                                                MatRef out) const noexcept {
  const int nf = n_elastic();
  const double w = v(2);
  const Eigen::Matrix2d a = frame_rotation(q(2));
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(nf));
  out.setZero();
  // J v = R' + theta' A I~ u + A S q_f', and d(A I~)/dtheta = A I~ I~ = -A
  out.col(2) = a * (-w * u + turn(displacement(s, v.tail(nf))));
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) out.col(3 + i) += w * (a * turn(s.shape.col(c)));
  }
}

Eigen::Vector2d FloatingFrameBeam::point_curvature(VecCRef q,
                                                   VecCRef v,
                                                   const BeamStation& s) const noexcept {
  const int nf = n_elastic();
  const double w = v(2);
  const Eigen::Vector2d u = Eigen::Vector2d(s.x, 0.0) + displacement(s, q.tail(nf));
  return frame_rotation(q(2)) * (-w * w * u + 2.0 * w * turn(displacement(s, v.tail(nf))));
}

}  // namespace rtmb
