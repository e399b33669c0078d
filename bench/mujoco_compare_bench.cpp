// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Side by side with MuJoCo (issue 14, "Small-model step time"): one step of the pinned planar
// 4-link chain (a closed 5-bar loop, 2 degrees of freedom) in rtmb and in MuJoCo's mj_step, in
// one binary and one run, so that the ratio is measured rather than remembered:
//   BM_RtmbStep/four_link_loop          rtmb RK4 + PStab, dt = 1 ms (the default step settings)
//   BM_RtmbStep/four_link_loop_nomonitor  the same without the drift and energy monitor (mj_step
//                                       computes no energy unless asked: mjENBL_ENERGY is off)
//   BM_MujocoStep/four_link_loop        mj_step, MuJoCo's default semi-implicit Euler
//   BM_MujocoStep/four_link_loop_rk4    mj_step with integrator="RK4"
//   BM_StepRatio/four_link_loop         both, interleaved batch by batch in one benchmark (the
//                                       machine is shared and noisy: interleaving exposes both to
//                                       the same noise); counters rtmb_ns, mujoco_ns (Euler) and
//                                       rtmb_per_mujoco = median rtmb batch / median MuJoCo batch
//   BM_RtmbStep/four_link_loop_joint_space  the same loop in rtmb's joint space (issue 19's
//                                       formulation: the four hinge angles and a 2-row closure,
//                                       MuJoCo's own coordinates), RK4 + PStab
//   BM_StepRatio/four_link_loop_joint_space  that against MuJoCo Euler, interleaved
// Measured 2026-11-29 (callgrind, instructions per step incl. monitor): body coordinates 38.7k,
// joint space 54.4k. Joint space is the slower one here: its kinematics (world poses, motion
// subspaces and 6x6 inertias, once per distinct q: 4 stages, 2 PStab passes, the monitor) cost
// more than the body coordinates' constant M and 2x3 joint blocks save.
// Every case also reports tip_error_m: the largest distance of the chain's tip from its pin over
// one simulated second from the benchmarked start (how well each keeps the loop closed).
//
//   ./build/bin/rtmb_bench --benchmark_filter='four_link_loop' --benchmark_repetitions=5
//     (add --benchmark_report_aggregates_only=true for the medians alone)
//
// Built only when CMake finds MuJoCo's header and library (Debian's libmujoco-dev 2.2.2, which
// scripts/install-deps.sh installs); bench/CMakeLists.txt says so when it does not.
//
// What "equivalent" means. Same mechanism: 4 uniform links of 0.5 m and 1 kg, centroidal inertia
// m L^2 / 12 about the hinge axis, on revolute joints hung from the origin in the +-30 degree
// zigzag of tests/support/planar_chain_spec.hpp (the model of `rtmb gen chain --n 4 --loop`), the
// tip pinned where it starts, gravity 9.81 m/s^2, dt = 1 ms, same start pose at rest, both warmed
// by 200 steps, both restarted from that warm state every 1000 steps. Our plane (x, y) with
// gravity along -y is MuJoCo's (x, z) with gravity along -z; the hinges turn about -y so that a
// positive angle turns x towards z as ours turns x towards y.
// What differs, and why the numbers are not the same physics to the last digit:
//   - Coordinates: rtmb's planar multibody uses absolute body coordinates (3 per body, n_v = 12,
//     4 joint rows x 2 + the pin's 2 = 10 constraint rows); MuJoCo uses joint angles (n_v = 4)
//     and only the loop closure is a constraint (a 3D `connect`, 3 rows, one of them redundant
//     for a planar motion).
//   - Constraints: ours are hard (the KKT solve enforces G v' = -L exactly, PStab projects the
//     drift of g and G v back after the step); MuJoCo's equality is soft (solref/solimp: a
//     spring-damper on the violation, solved as a convex optimization by its Newton solver), so
//     the loop gaps by a small, bounded amount. solref is set to its stiffest stable value for
//     dt = 1 ms (time constant 2 dt, critical damping); tip_error_m reports the gap.
//   - Integrator: rtmb RK4 (4 stages, each a full constrained acceleration solve) + PStab; MuJoCo's
//     default is semi-implicit Euler (one dynamics evaluation per step), its RK4 four.
//   - Out-of-plane inertia: MuJoCo needs a full 3D inertia; the rod's Iyy = Izz = m L^2 / 12 and
//     a small Ixx. Only the hinge-axis inertia enters a planar motion.
//   - No contacts: the model has no geoms and contacts are disabled.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

#include "bench/side_by_side.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/planar_chain_spec.hpp"

namespace {

using namespace rtmb;

constexpr int kLinks = 4;
constexpr double kDt = 1e-3;
constexpr int kWarmSteps = 200;
constexpr int kRestartSteps = 1000;  // 1 s of motion, as BM_ChainStep
constexpr int kBatch = 50;

// The MJCF of the loop; the %s is the integrator. Body frames sit at each link's hinge, with the
// link along local +x; each child is rotated by the zigzag's +-60 degrees from its parent.
// J = 1 * 0.5^2 / 12 = 0.0208333... kg m^2.
constexpr const char* kMjcf = R"(<mujoco model="four_link_loop">
  <compiler angle="degree" inertiafromgeom="false"/>
  <option timestep="0.001" gravity="0 0 -9.81" integrator="%s">
    <flag contact="disable"/>
  </option>
  <worldbody>
    <body name="link0" pos="0 0 0" axisangle="0 -1 0 -30">
      <joint name="pivot0" type="hinge" axis="0 -1 0"/>
      <inertial pos="0.25 0 0" mass="1" diaginertia="1e-6 0.0208333333333333 0.0208333333333333"/>
      <body name="link1" pos="0.5 0 0" axisangle="0 -1 0 60">
        <joint name="pivot1" type="hinge" axis="0 -1 0"/>
        <inertial pos="0.25 0 0" mass="1" diaginertia="1e-6 0.0208333333333333 0.0208333333333333"/>
        <body name="link2" pos="0.5 0 0" axisangle="0 -1 0 -60">
          <joint name="pivot2" type="hinge" axis="0 -1 0"/>
          <inertial pos="0.25 0 0" mass="1" diaginertia="1e-6 0.0208333333333333 0.0208333333333333"/>
          <body name="link3" pos="0.5 0 0" axisangle="0 -1 0 60">
            <joint name="pivot3" type="hinge" axis="0 -1 0"/>
            <inertial pos="0.25 0 0" mass="1" diaginertia="1e-6 0.0208333333333333 0.0208333333333333"/>
            <site name="tip" pos="0.5 0 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <connect name="pin" body1="link3" body2="world" anchor="0.5 0 0" solref="0.002 1"/>
  </equality>
</mujoco>
)";

// The pin: where the zigzag puts the tip, (4 L cos 30deg, 0).
[[nodiscard]] double pin_x() {
  return kLinks * 0.5 * std::cos(std::numbers::pi / 6.0);
}

/// The MuJoCo side: model and data, loaded from kMjcf through the virtual file system (no temp
/// file), warmed and with the warm state kept for restarts.
class MujocoLoop {
 public:
  explicit MujocoLoop(const char* integrator) {
    std::string xml(std::strlen(kMjcf) + 16, '\0');
    const int len = std::snprintf(xml.data(), xml.size(), kMjcf, integrator);
    xml.resize(static_cast<std::size_t>(len));
    auto vfs = std::make_unique<mjVFS>();  // ~2 MB: heap, not stack
    mj_defaultVFS(vfs.get());
    constexpr const char* kName = "four_link_loop.xml";
    if (mj_makeEmptyFileVFS(vfs.get(), kName, static_cast<int>(xml.size())) != 0) {
      throw std::runtime_error("mujoco: cannot make the VFS file");
    }
    const int index = mj_findFileVFS(vfs.get(), kName);
    std::memcpy(vfs->filedata[index], xml.data(), xml.size());
    char error[1000] = "";
    model_ = mj_loadXML(kName, vfs.get(), error, sizeof(error));
    mj_deleteVFS(vfs.get());
    if (model_ == nullptr) throw std::runtime_error(std::string("mujoco: ") + error);
    data_ = mj_makeData(model_);
    tip_ = mj_name2id(model_, mjOBJ_SITE, "tip");
    for (int i = 0; i < kWarmSteps; ++i) mj_step(model_, data_);
    start_ = mj_copyData(nullptr, model_, data_);
  }
  MujocoLoop(const MujocoLoop&) = delete;
  MujocoLoop& operator=(const MujocoLoop&) = delete;
  ~MujocoLoop() {
    mj_deleteData(start_);
    mj_deleteData(data_);
    mj_deleteModel(model_);
  }

  void step() noexcept { ::mj_step(model_, data_); }
  // mj_copyData into existing data copies the buffers only: no allocation
  void restart() noexcept { mj_copyData(data_, model_, start_); }

  /// Largest tip-to-pin distance over kRestartSteps steps from the warm start [m].
  [[nodiscard]] double tip_error() {
    restart();
    double worst = 0.0;
    for (int i = 0; i < kRestartSteps; ++i) {
      step();
      mj_kinematics(model_, data_);  // site_xpos of the new state
      const double* p = data_->site_xpos + 3 * tip_;
      worst = std::max(worst, std::hypot(p[0] - pin_x(), p[1], p[2]));
    }
    restart();
    return worst;
  }

 private:
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
  mjData* start_ = nullptr;
  int tip_ = -1;
};

/// The rtmb side: the planar multibody of `rtmb gen chain --n 4 --loop`, RK4 + PStab.
class RtmbLoop {
 public:
  explicit RtmbLoop(bool monitor = true)
      : loop_(std::make_shared<PlanarMultibody>(rtmb::testing::planar_chain_spec(kLinks, true)),
              kDt,
              monitor,
              kWarmSteps) {}

  void step() noexcept { loop_.step(); }
  void restart() noexcept { loop_.restart(); }

  /// Largest tip-to-pin distance over kRestartSteps steps from the warm start [m]: the tip is
  /// link 3's centre plus half a link along its direction (q = x, y, theta per body).
  [[nodiscard]] double tip_error() {
    restart();
    double worst = 0.0;
    for (int i = 0; i < kRestartSteps; ++i) {
      step();
      const Vec& q = loop_.state().q;
      const double x = q(9) + 0.25 * std::cos(q(11));
      const double y = q(10) + 0.25 * std::sin(q(11));
      worst = std::max(worst, std::hypot(x - pin_x(), y));
    }
    restart();
    return worst;
  }

 private:
  bench::RtmbStepLoop loop_;
};

/// The same loop in joint space (issue 19's formulation): q = the four hinge angles, each
/// relative to the link before (the zigzag's -30, +60, -60, +60 degrees), and the tip's pin a
/// planar-revolute closure (2 rows), where MuJoCo also has the four hinges and one equality.
JointSpaceSpec joint_space_loop_spec() {
  constexpr double kLength = 0.5;
  constexpr double kMass = 1.0;
  constexpr double kZigzag = std::numbers::pi / 6.0;
  JointSpaceSpec s;
  s.name = "chain_loop_4_joint_space";
  s.gravity = {0.0, -9.81, 0.0};
  double x = 0.0;  // the pin: the tip's start
  double y = 0.0;
  for (int k = 0; k < kLinks; ++k) {
    const double theta = (k % 2 == 0) ? -kZigzag : kZigzag;
    x += kLength * std::cos(theta);
    y += kLength * std::sin(theta);
    TreeLinkSpec link;
    link.name = "link" + std::to_string(k);
    link.mass = kMass;
    link.com = {0.5 * kLength, 0.0, 0.0};
    const double j = kMass * kLength * kLength / 12.0;
    link.inertia = Eigen::Vector3d(1e-3 * j, j, j).asDiagonal();
    s.links.push_back(link);
    TreeJointSpec joint;
    joint.name = "pivot" + std::to_string(k);
    joint.parent = k - 1;
    joint.child = k;
    joint.origin_xyz = k == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(kLength, 0.0, 0.0);
    joint.axis = Eigen::Vector3d::UnitZ();
    joint.initial_position = k == 0 ? -kZigzag : (k % 2 == 0 ? -2.0 : 2.0) * kZigzag;
    s.joints.push_back(joint);
  }
  TreeClosureSpec pin;
  pin.name = "tip";
  pin.type = TreeClosureType::kPlanarRevolute;
  pin.link_a = kLinks - 1;
  pin.point_a = {kLength, 0.0, 0.0};
  pin.link_b = -1;
  pin.point_b = {x, y, 0.0};
  pin.normal = Eigen::Vector3d::UnitZ();
  s.closures.push_back(pin);
  return s;
}

class RtmbJointSpaceLoop {
 public:
  explicit RtmbJointSpaceLoop(bool monitor = true)
      : tree_(std::make_shared<JointSpaceTree>(joint_space_loop_spec())),
        loop_(tree_, kDt, monitor, kWarmSteps) {}

  void step() noexcept { loop_.step(); }
  void restart() noexcept { loop_.restart(); }

  /// Largest tip-to-pin distance over kRestartSteps steps from the warm start [m].
  [[nodiscard]] double tip_error() {
    restart();
    double worst = 0.0;
    const Eigen::Vector3d tip(0.5, 0.0, 0.0);
    for (int i = 0; i < kRestartSteps; ++i) {
      step();
      const Eigen::Vector3d p = tree_->point_position(loop_.state().q, kLinks - 1, tip);
      worst = std::max(worst, std::hypot(p.x() - pin_x(), p.y()));
    }
    restart();
    return worst;
  }

 private:
  std::shared_ptr<JointSpaceTree> tree_;
  bench::RtmbStepLoop loop_;
};

void BM_RtmbJointSpaceStep(benchmark::State& bs) {
  RtmbJointSpaceLoop loop;
  bench::run_batches(bs, loop, kBatch, kRestartSteps);
  bs.counters["tip_error_m"] = loop.tip_error();
}
BENCHMARK(BM_RtmbJointSpaceStep)->Name("BM_RtmbStep/four_link_loop_joint_space");

void BM_RtmbStep(benchmark::State& bs, bool monitor) {
  RtmbLoop loop(monitor);
  bench::run_batches(bs, loop, kBatch, kRestartSteps);
  bs.counters["tip_error_m"] = loop.tip_error();
}
BENCHMARK_CAPTURE(BM_RtmbStep, four_link_loop, true)->Name("BM_RtmbStep/four_link_loop");
BENCHMARK_CAPTURE(BM_RtmbStep, four_link_loop_nomonitor, false)
    ->Name("BM_RtmbStep/four_link_loop_nomonitor");

void BM_MujocoStep(benchmark::State& bs, const char* integrator) {
  MujocoLoop loop(integrator);
  bench::run_batches(bs, loop, kBatch, kRestartSteps);
  bs.counters["tip_error_m"] = loop.tip_error();
}
BENCHMARK_CAPTURE(BM_MujocoStep, four_link_loop, "Euler")->Name("BM_MujocoStep/four_link_loop");
BENCHMARK_CAPTURE(BM_MujocoStep, four_link_loop_rk4, "RK4")
    ->Name("BM_MujocoStep/four_link_loop_rk4");

// Both engines in one benchmark, a batch of each in turn (bench/side_by_side.hpp).
void BM_StepRatio(benchmark::State& bs) {
  RtmbLoop rtmb_loop;
  MujocoLoop mujoco_loop("Euler");
  bench::step_ratio(bs, rtmb_loop, mujoco_loop, kBatch, kRestartSteps);
}
BENCHMARK(BM_StepRatio)->Name("BM_StepRatio/four_link_loop");

void BM_StepRatioJointSpace(benchmark::State& bs) {
  RtmbJointSpaceLoop rtmb_loop;
  MujocoLoop mujoco_loop("Euler");
  bench::step_ratio(bs, rtmb_loop, mujoco_loop, kBatch, kRestartSteps);
}
BENCHMARK(BM_StepRatioJointSpace)->Name("BM_StepRatio/four_link_loop_joint_space");

}  // namespace
