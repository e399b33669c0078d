// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19, acceptance 2: the Barrett WAM (and the KR5 and DRC-Hubo, M and bias only) of Debian's
// dart-doc
// (/usr/share/doc/dart/data/urdf/wam/wam.urdf, 7 revolute joints, not copied into the tree) in
// rtmb's joint space against an independent engine, MuJoCo 2.2.2 (Debian libmujoco-dev), which
// reads the same URDF (mj_loadXML; given through its virtual file system without the <collision>
// elements, whose meshes are not installed). No contacts, damping or armature on either side.
//   - mass matrix (rtmb: composite-rigid-body algorithm; MuJoCo: its own CRB, mj_fullM of qM) and
//     bias forces C(q, v) v + g(q) (rtmb: recursive Newton-Euler; MuJoCo: qfrc_bias) at random
//     states agree to 1e-10 relative (to the largest entry);
//   - released from a non-trivial pose, the joint angles after 1 s of RK4 at dt = 1e-4 agree with
//     MuJoCo's RK4 at the same step to <= 1e-6 rad.
//
// MuJoCo stores each body's inertia in its principal axes, found by its own Jacobi iteration
// (mjuu_eig3, which stops at an absolute off-diagonal of 1e-12): on the WAM's full inertia tensors
// that leaves their frames off by ~1e-9 relative, which shows in M (measured 1.2e-9 to 3.2e-9 at
// random states). MuJoCo therefore gets each <inertial> already in principal axes (the same tensor
// R diag(l) R^T, from Eigen's self-adjoint solver, rpy printed to 17 digits), on which its
// iteration is exact; rtmb reads the file as shipped. The unmodified file is compared too, at 1e-8.
// Joints are matched by name (MuJoCo keeps the URDF joint names). MuJoCo's joint-limit constraints
// (from the URDF <limit>s) are disabled for the trajectory: rtmb does not enforce limits yet.
//
// Floating base: the WAM with its joint "/j0" (world -> base) made type="floating", which both
// load (rtmb: a floating joint, q = (t, e), v = q', 14 coordinates; MuJoCo: a free joint, qpos =
// (position, quaternion w x y z), qvel = (linear velocity of the body origin in the world frame,
// angular velocity in the body frame), 13 dofs). With v_rtmb = T v_mj, T = diag(1, L(e)^T / 2, 1)
// (e' = L(e)^T omega' / 2, Haug 1989 ch. 6, euler_l), the kinetic energies agree when
// M_mj = T^T M T and the bias forces when b_mj = T^T (b + M T' v_mj) (T' = diag(0, L(e')^T / 2,
// 0)); T^T removes rtmb's c e e^T (L(e) e = 0).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model_file/urdf_model_file.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/mujoco_urdf.hpp"

namespace rtmb {
namespace {

const char* const kWam = "/usr/share/doc/dart/data/urdf/wam/wam.urdf";

using testing::file_text;
using testing::MujocoUrdf;

struct Pair {
  std::shared_ptr<const JointSpaceTree> rtmb;
  std::unique_ptr<MujocoUrdf> mujoco;
  std::vector<int> qpos;  // per rtmb coordinate: MuJoCo's qpos address (= dof address here)
  std::vector<int> dof;
};

Pair load_pair(const std::string& path = kWam, bool principal_axes = true) {
  Pair p;
  const ModelFile f = load_model_file(path);
  p.rtmb = std::make_shared<JointSpaceTree>(*f.joint_space);
  p.mujoco = std::make_unique<MujocoUrdf>(path, principal_axes);
  const JointSpaceSpec& spec = p.rtmb->spec();
  for (std::size_t j = 0; j < spec.joints.size(); ++j) {
    if (p.rtmb->coordinate(static_cast<int>(j)) < 0) continue;
    const int id = mj_name2id(p.mujoco->model, mjOBJ_JOINT, spec.joints[j].name.c_str());
    if (id < 0) throw std::runtime_error("mujoco has no joint " + spec.joints[j].name);
    p.qpos.push_back(p.mujoco->model->jnt_qposadr[id]);
    p.dof.push_back(p.mujoco->model->jnt_dofadr[id]);
  }
  return p;
}

TEST(WamMujoco, SameJointsAndGravity) {
  const Pair p = load_pair();
  ASSERT_EQ(p.rtmb->n_v(), 7);
  EXPECT_EQ(p.mujoco->model->nv, 7);
  EXPECT_EQ(p.mujoco->model->nq, 7);
  EXPECT_DOUBLE_EQ(p.mujoco->model->opt.gravity[2], -9.81);
  EXPECT_DOUBLE_EQ(p.rtmb->spec().gravity.z(), -9.81);
}

struct Worst {
  double mass = 0.0;
  double bias = 0.0;
};

// max over 20 random states of the relative differences of M and of the bias forces
Worst compare_at_random_states(const Pair& p) {
  const mjModel* m = p.mujoco->model;
  mjData* d = p.mujoco->data;
  const int n = p.rtmb->n_v();
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  std::uniform_real_distribution<double> rate(-2.0, 2.0);
  Worst worst;
  for (int trial = 0; trial < 20; ++trial) {
    Vec q(n);
    Vec v(n);
    for (int k = 0; k < n; ++k) {
      q(k) = angle(rng);
      v(k) = rate(rng);
      d->qpos[p.qpos[static_cast<std::size_t>(k)]] = q(k);
      d->qvel[p.dof[static_cast<std::size_t>(k)]] = v(k);
    }
    mj_forward(m, d);
    std::vector<mjtNum> full(static_cast<std::size_t>(n * n));
    mj_fullM(m, full.data(), d->qM);
    Mat mass(n, n);
    p.rtmb->mass(0.0, q, mass);
    Vec bias(n);
    p.rtmb->inverse_dynamics(q, v, Vec::Zero(n), bias);
    Mat mass_mj(n, n);
    Vec bias_mj(n);
    for (int i = 0; i < n; ++i) {
      const int di = p.dof[static_cast<std::size_t>(i)];
      bias_mj(i) = d->qfrc_bias[di];
      for (int j = 0; j < n; ++j) {
        mass_mj(i, j) = full[static_cast<std::size_t>(di * n + p.dof[static_cast<std::size_t>(j)])];
      }
    }
    const double em = (mass - mass_mj).cwiseAbs().maxCoeff() / mass_mj.cwiseAbs().maxCoeff();
    const double eb = (bias - bias_mj).cwiseAbs().maxCoeff() / bias_mj.cwiseAbs().maxCoeff();
    worst.mass = std::max(worst.mass, em);
    worst.bias = std::max(worst.bias, eb);
  }
  return worst;
}

TEST(WamMujoco, MassMatrixAndBiasForcesAgreeAtRandomStates) {
  const Worst w = compare_at_random_states(load_pair());
  EXPECT_LE(w.mass, 1e-10);
  EXPECT_LE(w.bias, 1e-10);
  std::printf("WAM vs MuJoCo at 20 random states: mass matrix %.3e, bias forces %.3e relative\n",
              w.mass, w.bias);
}

TEST(WamMujoco, AsShippedAgreesToMujocosInertiaDiagonalization) {
  const Worst w = compare_at_random_states(load_pair(kWam, false));
  EXPECT_LE(w.mass, 1e-8);
  EXPECT_LE(w.bias, 1e-8);
  std::printf("WAM as shipped vs MuJoCo: mass matrix %.3e, bias forces %.3e relative\n", w.mass,
              w.bias);
}

// The other two robots of acceptance 1: the KUKA KR5 (6 revolute joints, attributes on lines of
// their own) and DRC-Hubo (51 revolute joints, its root welded to the world on both sides).
TEST(WamMujoco, Kr5AndDrcHuboAgreeAtRandomStates) {
  for (const char* file : {"KR5/KR5 sixx R650.urdf", "drchubo/drchubo.urdf"}) {
    const Pair p = load_pair(std::string("/usr/share/doc/dart/data/urdf/") + file);
    ASSERT_EQ(p.mujoco->model->nv, p.rtmb->n_v()) << file;
    const Worst w = compare_at_random_states(p);
    EXPECT_LE(w.mass, 1e-10) << file;
    EXPECT_LE(w.bias, 1e-10) << file;
    std::printf("%s vs MuJoCo (%d joints): mass matrix %.3e, bias forces %.3e relative\n", file,
                p.rtmb->n_v(), w.mass, w.bias);
  }
}

TEST(WamMujoco, JointAnglesAfterOneSecondAgreeWithMujocosRk4) {
  const Pair p = load_pair();
  mjModel* m = p.mujoco->model;
  mjData* d = p.mujoco->data;
  constexpr double kWamDt = 1e-4;
  constexpr int kWamSteps = 10000;
  m->opt.timestep = kWamDt;
  m->opt.integrator = mjINT_RK4;
  // MuJoCo turns URDF <limit>s into joint-limit constraints; rtmb does not enforce limits yet
  m->opt.disableflags |= mjDSBL_CONSTRAINT;
  const int n = p.rtmb->n_v();
  const Vec q0 = (Vec(7) << 0.3, -0.8, 0.5, 1.2, -0.4, 0.7, 0.2).finished();
  mj_resetData(m, d);
  for (int k = 0; k < n; ++k) d->qpos[p.qpos[static_cast<std::size_t>(k)]] = q0(k);
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kNone;
  settings.dt = kWamDt;
  const Model model(p.rtmb, settings);
  Workspace ws(model);
  State s = initial_state(model);
  s.q = q0;
  for (int i = 0; i < kWamSteps; ++i) {
    ASSERT_TRUE(step(model, s, ws).ok());
    mj_step(m, d);
  }
  double worst = 0.0;
  for (int k = 0; k < n; ++k) {
    worst = std::max(worst, std::abs(s.q(k) - d->qpos[p.qpos[static_cast<std::size_t>(k)]]));
  }
  EXPECT_GT((s.q - q0).cwiseAbs().maxCoeff(), 0.1);  // it fell
  EXPECT_LE(worst, 1e-6);
  std::printf(
      "WAM vs MuJoCo RK4, 1 s at dt = 1e-4 from a bent pose: max joint angle difference "
      "%.3e rad\n",
      worst);
}

TEST(WamMujoco, FloatingBaseMassMatrixAndBiasForcesAgreeAtRandomStates) {
  std::string text = file_text(kWam);
  const std::string welded = "<joint name=\"/j0\" type=\"fixed\">";
  ASSERT_NE(text.find(welded), std::string::npos);
  text.replace(text.find(welded), welded.size(), "<joint name=\"/j0\" type=\"floating\">");
  const ModelFile f = detail::urdf_model_file(text, "wam_floating.urdf");
  const JointSpaceTree tree(*f.joint_space);
  const MujocoUrdf mj(MujocoUrdf::FromText{}, text, true);
  const mjModel* m = mj.model;
  mjData* d = mj.data;
  ASSERT_EQ(tree.n_v(), 14);
  ASSERT_EQ(m->nq, 14);
  ASSERT_EQ(m->nv, 13);
  const int free = mj_name2id(m, mjOBJ_JOINT, "/j0");
  ASSERT_GE(free, 0);
  ASSERT_EQ(m->jnt_type[free], mjJNT_FREE);
  ASSERT_EQ(tree.coordinate(0), 0);  // rtmb: the floating joint's 7 coordinates first
  // rtmb coordinate k >= 7 (a revolute joint) <-> MuJoCo qpos and dof address, by name
  std::vector<int> qpos(14, -1);
  std::vector<int> dof(14, -1);
  const JointSpaceSpec& spec = tree.spec();
  for (std::size_t j = 1; j < spec.joints.size(); ++j) {
    const int k = tree.coordinate(static_cast<int>(j));
    if (k < 0) continue;
    const int id = mj_name2id(m, mjOBJ_JOINT, spec.joints[j].name.c_str());
    ASSERT_GE(id, 0) << spec.joints[j].name;
    qpos[static_cast<std::size_t>(k)] = m->jnt_qposadr[id];
    dof[static_cast<std::size_t>(k)] = m->jnt_dofadr[id];
  }
  const int q0 = m->jnt_qposadr[free];
  const int d0 = m->jnt_dofadr[free];
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  double worst_mass = 0.0;
  double worst_bias = 0.0;
  for (int trial = 0; trial < 10; ++trial) {
    Vec q(14);
    Vec v_mj(13);  // MuJoCo's order: free joint (v, omega'), then rtmb's revolute coordinates
    for (int i = 0; i < 3; ++i) q(i) = uniform(rng);
    Eigen::Vector4d e(uniform(rng), uniform(rng), uniform(rng), uniform(rng));
    e.normalize();
    q.segment<4>(3) = e;
    for (int k = 7; k < 14; ++k) q(k) = 3.0 * uniform(rng);
    for (int i = 0; i < 13; ++i) v_mj(i) = 2.0 * uniform(rng);
    for (int i = 0; i < 7; ++i) d->qpos[q0 + i] = q(i);
    for (int i = 0; i < 6; ++i) d->qvel[d0 + i] = v_mj(i);
    for (int k = 7; k < 14; ++k) {
      d->qpos[qpos[static_cast<std::size_t>(k)]] = q(k);
      d->qvel[dof[static_cast<std::size_t>(k)]] = v_mj(k - 1);
    }
    mj_forward(m, d);
    Mat t = Mat::Zero(14, 13);
    t.topLeftCorner<3, 3>().setIdentity();
    t.block<4, 3>(3, 3) = 0.5 * euler_l(e).transpose();
    t.bottomRightCorner<7, 7>().setIdentity();
    const Vec v = t * v_mj;
    Mat t_rate = Mat::Zero(14, 13);
    t_rate.block<4, 3>(3, 3) = 0.5 * euler_l(v.segment<4>(3)).transpose();
    Mat mass(14, 14);
    tree.mass(0.0, q, mass);
    Vec bias(14);
    tree.inverse_dynamics(q, v, Vec::Zero(14), bias);
    const Mat mass_rtmb = t.transpose() * mass * t;
    const Vec bias_rtmb = t.transpose() * (bias + mass * t_rate * v_mj);
    std::vector<mjtNum> full(13 * 13);
    mj_fullM(m, full.data(), d->qM);
    // MuJoCo's dof of row i of v_mj
    const auto mj_dof = [&](int i) {
      return i < 6 ? d0 + i : dof[static_cast<std::size_t>(i + 1)];
    };
    Mat mass_mj(13, 13);
    Vec bias_mj(13);
    for (int i = 0; i < 13; ++i) {
      bias_mj(i) = d->qfrc_bias[mj_dof(i)];
      for (int j = 0; j < 13; ++j) {
        mass_mj(i, j) = full[static_cast<std::size_t>(mj_dof(i) * 13 + mj_dof(j))];
      }
    }
    worst_mass = std::max(
        worst_mass, (mass_rtmb - mass_mj).cwiseAbs().maxCoeff() / mass_mj.cwiseAbs().maxCoeff());
    worst_bias = std::max(
        worst_bias, (bias_rtmb - bias_mj).cwiseAbs().maxCoeff() / bias_mj.cwiseAbs().maxCoeff());
  }
  EXPECT_LE(worst_mass, 1e-10);
  EXPECT_LE(worst_bias, 1e-10);
  std::printf(
      "floating-base WAM vs MuJoCo (free joint) at 10 random states: mass matrix %.3e, bias "
      "forces %.3e relative\n",
      worst_mass, worst_bias);
}

}  // namespace
}  // namespace rtmb
