// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The virtual coupling of a joint-space tree (engine/multibody/joint_space_coupling.cpp; issue 19
// acceptance 6) on the Barrett WAM of Debian's dart-doc, coupled at its tool flange (6 cm along
// /wam7's z), gravity off so that at v = 0 the coupling is the only generalized force:
//  - the spring's generalized force is -dV/dq of V = k |p(q) - p*|^2 / 2, by central differences
//    of V with p(q) the tree's forward kinematics, at random poses; energy() is V there;
//  - with v != 0 the damper adds J_p^T (-c p'), J_p by central differences of p(q);
//  - the coupling's Jacobian is those central differences, and the linearization output's
//    effective inverse mass is J M^-1 J^T from M (CRBA) and that J by a direct solve;
//  - the haptic force output is minus the force on the flange: a device moved +1 cm in x from
//    the flange is pushed back by k * 1 cm;
//  - a joint-force channel adds its clamped value to its coordinate.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <memory>
#include <random>
#include <vector>

#include "rtmb/models/joint_space_outputs.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

constexpr double kStiffness = 400.0;  // [N/m]
constexpr double kDamping = 3.0;      // [N s/m]

// The WAM without gravity, a coupling at its flange to `target`, the target's x and y and a
// torque on /j2 (limit 2 N m) as channels.
JointSpaceSpec coupled_wam(const Eigen::Vector3d& target) {
  const ModelFile f = load_model_file("/usr/share/doc/dart/data/urdf/wam/wam.urdf");
  JointSpaceSpec spec = *f.joint_space;
  spec.gravity.setZero();
  TreeCouplingSpec c;
  c.name = "coupling";
  for (std::size_t l = 0; l < spec.links.size(); ++l) {
    if (spec.links[l].name == "/wam7") c.link = static_cast<int>(l);
  }
  c.point = {0.0, 0.0, 0.06};
  c.stiffness = kStiffness;
  c.damping = kDamping;
  c.target = target;
  spec.couplings.push_back(c);
  TreeInputSpec in;
  in.name = "target_x";
  in.type = TreeInputType::kCouplingX;
  in.element = 0;
  in.initial = target.x();
  spec.inputs.push_back(in);
  in.name = "target_y";
  in.type = TreeInputType::kCouplingY;
  in.initial = target.y();
  spec.inputs.push_back(in);
  in.name = "j2";
  in.type = TreeInputType::kJointForce;
  for (std::size_t j = 0; j < spec.joints.size(); ++j) {
    if (spec.joints[j].name == "/j2") in.joint = static_cast<int>(j);
  }
  in.limit = 2.0;
  in.initial = 0.0;
  spec.inputs.push_back(in);
  return spec;
}

// dp/dq by central differences of the flange's forward kinematics
Mat point_jacobian_fd(const JointSpaceTree& tree, const Vec& q) {
  const TreeCouplingSpec& c = tree.spec().couplings[0];
  const double h = 1e-6;
  Mat j(3, q.size());
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    Vec qp = q;
    Vec qm = q;
    qp(k) += h;
    qm(k) -= h;
    j.col(k) =
        (tree.point_position(qp, c.link, c.point) - tree.point_position(qm, c.link, c.point)) /
        (2.0 * h);
  }
  return j;
}

Vec random_pose(std::mt19937& rng) {
  std::uniform_real_distribution<double> angle(-1.2, 1.2);
  Vec q(7);
  for (Eigen::Index k = 0; k < 7; ++k) q(k) = angle(rng);
  return q;
}

TEST(JointSpaceCoupling, SpringForceIsMinusTheGradientOfItsPotential) {
  const Eigen::Vector3d target(0.7, 0.3, 0.5);
  const JointSpaceTree tree(coupled_wam(target));
  const TreeCouplingSpec& c = tree.spec().couplings[0];
  const std::array<double, 3> u{0.75, 0.25, 0.0};  // the channels move the target in x and y
  const Eigen::Vector3d moved(0.75, 0.25, target.z());
  EXPECT_EQ(tree.coupling_target(0, u), moved);
  auto potential = [&](const Vec& q) {
    return 0.5 * kStiffness * (tree.point_position(q, c.link, c.point) - moved).squaredNorm();
  };
  std::mt19937 rng(19);
  const Vec v = Vec::Zero(7);
  for (int trial = 0; trial < 5; ++trial) {
    const Vec q = random_pose(rng);
    Vec f(7);
    tree.forces(0.0, q, v, u, f);
    const double h = 1e-6;
    double scale = 0.0;
    Vec grad(7);
    for (Eigen::Index k = 0; k < 7; ++k) {
      Vec qp = q;
      Vec qm = q;
      qp(k) += h;
      qm(k) -= h;
      grad(k) = (potential(qp) - potential(qm)) / (2.0 * h);
      scale = std::max(scale, std::abs(grad(k)));
    }
    ASSERT_GT(scale, 1.0);  // the spring is stretched by tens of centimetres
    EXPECT_LT((f + grad).lpNorm<Eigen::Infinity>(), 1e-7 * scale)
        << "q " << q.transpose() << "\nf " << f.transpose() << "\n-dV/dq " << -grad.transpose();
    // at v = 0 without gravity the energy is the coupling's potential alone
    EXPECT_NEAR(tree.energy(0.0, q, v, u), potential(q), 1e-12 * potential(q));
  }
}

TEST(JointSpaceCoupling, DamperAddsTheTransposedJacobianOfTheDampingForce) {
  const Eigen::Vector3d target(0.7, 0.3, 0.5);
  const JointSpaceTree tree(coupled_wam(target));
  JointSpaceSpec free_spec = tree.spec();
  free_spec.couplings.clear();
  free_spec.inputs.clear();
  const JointSpaceTree free_tree(free_spec);
  const TreeCouplingSpec& c = tree.spec().couplings[0];
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3; ++trial) {
    const Vec q = random_pose(rng);
    const Vec v = random_pose(rng);
    Vec f(7);
    Vec f_free(7);
    tree.forces(0.0, q, v, {}, f);
    free_tree.forces(0.0, q, v, {}, f_free);
    const Mat j = point_jacobian_fd(tree, q);
    const Eigen::Vector3d p = tree.point_position(q, c.link, c.point);
    const Eigen::Vector3d force = -kStiffness * (p - target) - kDamping * (j * v);
    const Vec expected = j.transpose() * force;
    EXPECT_LT((f - f_free - expected).lpNorm<Eigen::Infinity>(),
              1e-7 * expected.lpNorm<Eigen::Infinity>());
    EXPECT_LT((tree.coupling_force(0, q, v, {}) - force).norm(), 1e-7 * force.norm());
  }
}

TEST(JointSpaceCoupling, LinearizationIsTheEffectiveInverseMassOfTheFlange) {
  const Eigen::Vector3d target(0.7, 0.3, 0.5);
  const JointSpaceTree tree(coupled_wam(target));
  std::vector<JointSpaceOutputSpec> outputs(1);
  outputs[0].name = "linearization";
  outputs[0].type = JointSpaceOutputType::kCouplingLinearization;
  outputs[0].element = 0;
  JointSpaceOutputs evaluator(tree, tree, outputs);
  ASSERT_EQ(evaluator.count(), 8);
  Settings settings;
  settings.stabilizer = StabilizerKind::kNone;
  const Model model(std::make_shared<JointSpaceTree>(tree.spec()), settings);
  const Workspace ws(model);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 3; ++trial) {
    State s(7, 7);
    s.q = random_pose(rng);
    const Mat j = point_jacobian_fd(tree, s.q);
    Mat jac(3, 7);
    tree.coupling_jacobian(0, s.q, jac);
    EXPECT_LT((jac - j).cwiseAbs().maxCoeff(), 1e-8);
    Mat m(7, 7);
    tree.mass(0.0, s.q, m);
    const Eigen::Matrix3d w = j * m.ldlt().solve(j.transpose());
    std::vector<double> out(8);
    evaluator.evaluate(s, ws, out);
    const std::array<std::array<int, 2>, 6> entries{
        {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}};
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const double expected = w(entries[i][0], entries[i][1]);
      EXPECT_NEAR(out[i], expected, 1e-7 * w.cwiseAbs().maxCoeff()) << "entry " << i;
    }
    EXPECT_EQ(out[6], kStiffness);
    EXPECT_EQ(out[7], kDamping);
    EXPECT_GT(w.determinant(), 0.0);  // positive definite away from singular poses
  }
}

TEST(JointSpaceCoupling, HapticForcePushesTheDeviceBackAndJointChannelsAreClamped) {
  const JointSpaceTree probe(coupled_wam(Eigen::Vector3d::Zero()));
  State s;
  probe.initial_state(s);
  s.q << 0.0, 0.6, 0.0, 1.7, 0.0, -0.6, 0.0;
  const TreeCouplingSpec& c0 = probe.spec().couplings[0];
  const Eigen::Vector3d flange = probe.point_position(s.q, c0.link, c0.point);
  const JointSpaceTree tree(coupled_wam(flange));
  std::vector<JointSpaceOutputSpec> outputs(2);
  outputs[0].type = JointSpaceOutputType::kHapticForce;
  outputs[0].element = 0;
  outputs[1].type = JointSpaceOutputType::kCouplingForce;
  outputs[1].element = 0;
  JointSpaceOutputs evaluator(tree, tree, outputs);
  ASSERT_EQ(evaluator.count(), 9);
  Settings settings;
  settings.stabilizer = StabilizerKind::kNone;
  const Model model(std::make_shared<JointSpaceTree>(tree.spec()), settings);
  Workspace ws(model);
  // the device 1 cm beyond the flange in x: the spring pulls the flange +x and the device -x
  const std::array<double, 3> u{flange.x() + 0.01, flange.y(), 5.0};
  set_inputs(ws, u);
  std::vector<double> out(9);
  evaluator.evaluate(s, ws, out);
  EXPECT_NEAR(out[0], -kStiffness * 0.01, 1e-12);  // no safety configured: the raw force
  EXPECT_NEAR(out[1], 0.0, 1e-12);
  EXPECT_NEAR(out[2], 0.0, 1e-12);
  EXPECT_NEAR(out[6], kStiffness * 0.01, 1e-12);  // on the flange: towards the device
  // the /j2 channel asks 5 N m, clamped to its 2 N m limit: exactly 2 more on coordinate 1
  Vec f_in(7);
  Vec f_zero(7);
  const std::array<double, 3> u_zero{u[0], u[1], 0.0};
  tree.forces(0.0, s.q, s.v, u, f_in);
  tree.forces(0.0, s.q, s.v, u_zero, f_zero);
  Vec expected = Vec::Zero(7);
  expected(tree.coordinate(tree.spec().inputs[2].joint)) = 2.0;
  EXPECT_EQ(tree.coordinate(tree.spec().inputs[2].joint), 1);  // /j2 is the second coordinate
  EXPECT_LT((f_in - f_zero - expected).lpNorm<Eigen::Infinity>(), 1e-12);
}

}  // namespace
}  // namespace rtmb
