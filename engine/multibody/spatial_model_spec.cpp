// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The spatial model spec (include/rtmb/models/spatial_multibody.hpp) before it becomes a System:
// validation (every index in range, inertias positive definite, joint frames derived from the
// initial poses, named inputs bound to elements that exist), the joint types' row counts and
// names, and assembly of a consistent initial state. Setup-only; the evaluations
// (spatial_multibody.cpp) check nothing at run time.
#include "engine/multibody/spatial_model_spec.hpp"

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/enum_names.hpp"
#include "engine/multibody/assembly.hpp"
#include "engine/multibody/spec_checks.hpp"
#include "rtmb/state.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

// a unit vector normal to unit a
Vec3 any_normal(const Vec3& a) noexcept {
  const Vec3 t = std::abs(a.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  return (t - t.dot(a) * a).normalized();
}

Mat3 initial_rotation(const SpatialModelSpec& spec, int b) {
  if (b == kGround) return Mat3::Identity();
  return rotation(spec.bodies[static_cast<std::size_t>(b)].orientation.normalized());
}

bool positive_definite(const Mat3& J) {
  if (!J.allFinite() || (J - J.transpose()).lpNorm<Eigen::Infinity>() > 1e-12 * J.norm()) {
    return false;
  }
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(J);
  return eig.eigenvalues().minCoeff() > 0.0;
}

// Derives the joint frames: unit axis_i; ref_i normal to it; axis_j, ref_j from the initial
// poses when zero (the same world directions as axis_i, ref_i at t = 0).
void complete_frames(const SpatialModelSpec& spec, SpatialJointSpec& j, const std::string& what) {
  const double a = j.axis_i.norm();
  if (!(a > 0.0) || !std::isfinite(a)) throw std::invalid_argument(what + ": zero axis_i");
  j.axis_i /= a;
  const Vec3 ri = j.ref_i - j.ref_i.dot(j.axis_i) * j.axis_i;
  j.ref_i = ri.norm() > 1e-9 ? Vec3(ri.normalized()) : any_normal(j.axis_i);
  const Mat3 rel = initial_rotation(spec, j.body_j).transpose() * initial_rotation(spec, j.body_i);
  if (j.axis_j.isZero(0.0)) {
    if (j.type == SpatialJointType::kUniversal) {
      throw std::invalid_argument(what + ": a universal joint needs axis_j");
    }
    j.axis_j = rel * j.axis_i;
  }
  const double aj = j.axis_j.norm();
  if (!(aj > 0.0) || !std::isfinite(aj)) throw std::invalid_argument(what + ": zero axis_j");
  j.axis_j /= aj;
  if (j.ref_j.isZero(0.0)) j.ref_j = rel * j.ref_i;
  const Vec3 rj = j.ref_j - j.ref_j.dot(j.axis_j) * j.axis_j;
  j.ref_j = rj.norm() > 1e-9 ? Vec3(rj.normalized()) : any_normal(j.axis_j);
}

// A rolling disc (spatial_rolling_disc.hpp): the plane is the ground (body_i), the disc a body
// (body_j) with a radius > 0 and a non-zero axis of its own (not derived from the poses).
void check_rolling_disc(const SpatialJointSpec& j, const std::string& what) {
  if (j.body_i != kGround || j.body_j == kGround) {
    throw std::invalid_argument(what + ": a rolling disc is body_j on the ground's plane (body_i)");
  }
  if (!(j.radius > 0.0) || !std::isfinite(j.radius)) {
    throw std::invalid_argument(what + ": radius must be finite and > 0");
  }
  if (!(j.axis_j.norm() > 0.0) || !j.axis_j.allFinite() || !j.point_i.allFinite()) {
    throw std::invalid_argument(what + ": the disc axis (axis_j) must be non-zero");
  }
}

// The bindings of the named input channels (SpatialModelSpec::inputs).
void validate_inputs(SpatialModelSpec& spec) {
  const int n = static_cast<int>(spec.bodies.size());
  for (SpatialInputSpec& in : spec.inputs) {
    const std::string what = "input '" + in.name + "'";
    if (in.type == SpatialInputType::kForce || in.type == SpatialInputType::kTorque) {
      detail::normalize_or_throw(in.direction, what + ": zero direction");
      detail::check_acted_on_body(in.body, n, what);
      if (!in.point.allFinite()) throw std::invalid_argument(what + ": point must be finite");
    } else if (in.type == SpatialInputType::kMotor) {
      detail::require_of_type(spec.joints, in.joint, SpatialJointType::kRevolute,
                              what + ": a motor needs a revolute joint");
      if (!(in.limit > 0.0)) throw std::invalid_argument(what + ": limit must be > 0");
    } else if (in.type == SpatialInputType::kCouplingX || in.type == SpatialInputType::kCouplingY ||
               in.type == SpatialInputType::kCouplingZ) {
      detail::require_of_type(spec.forces, in.element, SpatialForceType::kCoupling,
                              what + ": needs a coupling force element");
    }
    if (!std::isfinite(in.initial)) throw std::invalid_argument(what + ": initial value");
  }
}

}  // namespace

SpatialModelSpec spatial_detail::validated(SpatialModelSpec spec) {
  const int n = static_cast<int>(spec.bodies.size());
  if (n == 0) throw std::invalid_argument("a spatial model needs at least one body");
  for (SpatialBodySpec& b : spec.bodies) {
    const std::string what = "body '" + b.name + "'";
    if (!(b.mass > 0.0) || !std::isfinite(b.mass)) {
      throw std::invalid_argument(what + ": mass must be finite and > 0");
    }
    if (!positive_definite(b.inertia)) {
      throw std::invalid_argument(what + ": inertia must be symmetric positive definite");
    }
    const double en = b.orientation.norm();
    if (!(en > 0.0) || !std::isfinite(en) || !b.position.allFinite() || !b.velocity.allFinite() ||
        !b.angular_velocity.allFinite()) {
      throw std::invalid_argument(what +
                                  ": orientation must be non-zero, pose and velocity "
                                  "finite");
    }
    b.orientation /= en;
  }
  for (SpatialJointSpec& j : spec.joints) {
    const std::string what = "joint '" + j.name + "'";
    detail::check_body(j.body_i, n, what);
    detail::check_body(j.body_j, n, what);
    if (j.body_i == j.body_j) throw std::invalid_argument(what + " joins a body to itself");
    if (j.type == SpatialJointType::kDiscContact || j.type == SpatialJointType::kDiscNoSlip) {
      check_rolling_disc(j, what);
    }
    complete_frames(spec, j, what);
    if (j.type == SpatialJointType::kDistance && !(j.length > 0.0)) {
      throw std::invalid_argument(what + ": length must be > 0");
    }
  }
  // the nonholonomic rows must be the System's last (System::n_holonomic())
  for (std::size_t k = 1; k < spec.joints.size(); ++k) {
    if (is_nonholonomic(spec.joints[k - 1].type) && !is_nonholonomic(spec.joints[k].type)) {
      throw std::invalid_argument("joint '" + spec.joints[k].name +
                                  "': rolling_disc_no_slip entries must follow every other joint "
                                  "(their rows are the nonholonomic ones)");
    }
  }
  for (const SpatialForceSpec& f : spec.forces) {
    const std::string what = "force '" + f.name + "'";
    detail::check_body(f.body_i, n, what);
    detail::check_body(f.body_j, n, what);
    if (f.type == SpatialForceType::kSpringDamper && f.body_i == f.body_j) {
      throw std::invalid_argument(what + " connects a body to itself");
    }
    if ((f.type == SpatialForceType::kForce || f.type == SpatialForceType::kTorque) &&
        f.body_i == kGround) {
      throw std::invalid_argument(what + " acts on the ground");
    }
    if (f.type == SpatialForceType::kRotationalSpring &&
        !detail::is_of_type(spec.joints, f.joint, SpatialJointType::kRevolute)) {
      throw std::invalid_argument(what + " needs a revolute joint");
    }
    if (f.type == SpatialForceType::kCoupling &&
        (f.body_i == kGround || !f.vector.allFinite() || f.stiffness < 0.0 || f.damping < 0.0)) {
      throw std::invalid_argument(what +
                                  ": a coupling needs a body, a finite target and k, c >= 0");
    }
  }
  validate_inputs(spec);
  return spec;
}

int spatial_detail::constraint_row_count(const SpatialModelSpec& spec) {
  int rows = static_cast<int>(spec.bodies.size());
  for (const SpatialJointSpec& j : spec.joints) rows += constraint_rows(j.type);
  return rows;
}

int spatial_detail::nonholonomic_row_count(const SpatialModelSpec& spec) {
  int rows = 0;
  for (const SpatialJointSpec& j : spec.joints) {
    rows += is_nonholonomic(j.type) ? constraint_rows(j.type) : 0;
  }
  return rows;
}

namespace {

// Rows per joint type, in SpatialJointType order: spherical 3, revolute 5, universal 4,
// cylindrical 4, prismatic 5, fixed 6, distance 1, planar 3, rolling disc contact 1 and no slip 2.
constexpr std::array<int, 10> kJointRows{3, 5, 4, 4, 5, 6, 1, 3, 1, 2};
constexpr std::array<std::string_view, 10> kJointNames{
    "spherical", "revolute", "universal", "cylindrical",  "prismatic",
    "fixed",     "distance", "planar",    "rolling_disc", "rolling_disc_no_slip"};
static_assert(static_cast<std::size_t>(SpatialJointType::kDiscNoSlip) + 1 == kJointRows.size());

}  // namespace

bool is_nonholonomic(SpatialJointType type) noexcept {
  return type == SpatialJointType::kDiscNoSlip;
}

int constraint_rows(SpatialJointType type) noexcept {
  return detail::enum_lookup(kJointRows, type, 0);
}

std::string_view to_string(SpatialJointType type) noexcept {
  return detail::enum_name(kJointNames, type);
}

std::vector<std::string> assemble(SpatialModelSpec& spec, double tolerance, int max_iterations) {
  // the normalization rows take part in the Newton iteration like the joints' (g_t = 0 here)
  return detail::assemble_spec<SpatialMultibody>(
      spec, tolerance, max_iterations, [&spec](const SpatialMultibody& sys, const State& s) {
        for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
          const Eigen::Index k = 7 * static_cast<Eigen::Index>(b);
          SpatialBodySpec& body = spec.bodies[b];
          body.position = s.q.segment<3>(k);
          body.orientation = s.q.segment<4>(k + 3).normalized();
          body.velocity = s.v.segment<3>(k);
          body.angular_velocity = 2.0 * euler_e(body.orientation) * s.v.segment<4>(k + 3);
        }
        // the derived joint frames follow the given poses; keep them as derived
        spec.joints = sys.spec().joints;
      });
}

}  // namespace rtmb
