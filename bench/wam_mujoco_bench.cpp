// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19, acceptance 4: one step of the Barrett WAM (Debian dart-doc's wam.urdf, 7 revolute
// joints, not copied into the tree) in rtmb's joint space and in MuJoCo 2.2.2's mj_step on the
// same URDF, in one binary and one run:
//   BM_RtmbStep/wam              rtmb RK4 + PStab, dt = 1 ms (joint space: no constraint rows,
//                                so PStab has nothing to project; M by the composite-rigid-body
//                                algorithm, bias forces by recursive Newton-Euler)
//   BM_RtmbStep/wam_nomonitor    the same without the energy monitor (mj_step computes no energy
//                                unless asked)
//   BM_MujocoStep/wam            mj_step, MuJoCo's default semi-implicit Euler, dt = 1 ms
//   BM_MujocoStep/wam_rk4        mj_step with the RK4 integrator
//   BM_StepRatio/wam             rtmb RK4 + PStab against MuJoCo Euler, interleaved batch by
//                                batch (bench/side_by_side.hpp); rtmb_per_mujoco <= 1 meets the
//                                acceptance
//   BM_StepRatio/wam_rk4         the same against MuJoCo RK4 (the same order of accuracy)
//
//   ./build/bin/rtmb_bench --benchmark_filter='/wam' --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
//
// Same model on both sides: the URDF as shipped for rtmb; for MuJoCo the same text without its
// <collision> elements (their meshes are not installed) and with each <inertial> in principal
// axes (tests/support/mujoco_urdf.hpp; the dynamics agree to 1e-10 relative,
// tests/scenarios/wam_mujoco_test.cpp). No contacts, no joint limits on either side (MuJoCo's
// limit constraints are disabled: rtmb does not enforce limits yet), no damping or armature.
// Both start from the same pose at rest, are warmed by 200 steps and restarted from that warm
// state every 1000 steps (1 s of swinging under gravity).
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/side_by_side.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/mujoco_urdf.hpp"

namespace {

using namespace rtmb;

const char* const kWam = "/usr/share/doc/dart/data/urdf/wam/wam.urdf";
constexpr double kDt = 1e-3;
constexpr int kWarmSteps = 200;
constexpr int kRestartSteps = 1000;
constexpr int kBatch = 50;
// the start pose, joints /j1 .. /j7 [rad]
constexpr double kPose[7] = {0.3, -0.8, 0.5, 1.2, -0.4, 0.7, 0.2};

class MujocoWam {
 public:
  explicit MujocoWam(int integrator) : mj_(kWam, true) {
    mjModel* m = mj_.model;
    m->opt.timestep = kDt;
    m->opt.integrator = integrator;
    m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT;
    mj_resetData(m, mj_.data);
    for (int k = 0; k < 7; ++k) {
      const std::string name = "/j" + std::to_string(k + 1);
      const int id = mj_name2id(m, mjOBJ_JOINT, name.c_str());
      if (id < 0) throw std::runtime_error("mujoco: the WAM has no joint " + name);
      mj_.data->qpos[m->jnt_qposadr[id]] = kPose[k];
    }
    for (int i = 0; i < kWarmSteps; ++i) mj_step(m, mj_.data);
    start_ = mj_copyData(nullptr, m, mj_.data);
  }
  MujocoWam(const MujocoWam&) = delete;
  MujocoWam& operator=(const MujocoWam&) = delete;
  ~MujocoWam() { mj_deleteData(start_); }

  void step() noexcept { ::mj_step(mj_.model, mj_.data); }
  // mj_copyData into existing data copies the buffers only: no allocation
  void restart() noexcept { mj_copyData(mj_.data, mj_.model, start_); }

 private:
  testing::MujocoUrdf mj_;
  mjData* start_ = nullptr;
};

// rtmb's WAM from the same start pose
bench::RtmbStepLoop rtmb_wam(bool monitor) {
  const std::shared_ptr<const System> system = make_system(load_model_file(kWam));
  if (system->n_q() != 7) throw std::runtime_error("rtmb: the WAM does not have 7 joints");
  const Vec q0 = Eigen::Map<const Vec>(kPose, 7);
  return bench::RtmbStepLoop(system, kDt, monitor, kWarmSteps, &q0);
}

void BM_RtmbWam(benchmark::State& bs, bool monitor) {
  bench::RtmbStepLoop loop = rtmb_wam(monitor);
  bench::run_batches(bs, loop, kBatch, kRestartSteps);
}
BENCHMARK_CAPTURE(BM_RtmbWam, wam, true)->Name("BM_RtmbStep/wam");
BENCHMARK_CAPTURE(BM_RtmbWam, wam_nomonitor, false)->Name("BM_RtmbStep/wam_nomonitor");

void BM_MujocoWam(benchmark::State& bs, int integrator) {
  MujocoWam loop(integrator);
  bench::run_batches(bs, loop, kBatch, kRestartSteps);
}
BENCHMARK_CAPTURE(BM_MujocoWam, wam, static_cast<int>(mjINT_EULER))->Name("BM_MujocoStep/wam");
BENCHMARK_CAPTURE(BM_MujocoWam, wam_rk4, static_cast<int>(mjINT_RK4))
    ->Name("BM_MujocoStep/wam_rk4");

void BM_WamRatio(benchmark::State& bs, int integrator) {
  bench::RtmbStepLoop rtmb_loop = rtmb_wam(true);
  MujocoWam mujoco_loop(integrator);
  bench::step_ratio(bs, rtmb_loop, mujoco_loop, kBatch, kRestartSteps);
}
BENCHMARK_CAPTURE(BM_WamRatio, wam, static_cast<int>(mjINT_EULER))->Name("BM_StepRatio/wam");
BENCHMARK_CAPTURE(BM_WamRatio, wam_rk4, static_cast<int>(mjINT_RK4))->Name("BM_StepRatio/wam_rk4");

}  // namespace
