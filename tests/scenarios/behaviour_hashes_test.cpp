// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Behaviour lock for restructurings (issue 13, acceptance 1). Every configs/*.yaml model and
// every built-in mechanism is stepped 1000 times with every method x stabilizer the allocation
// test covers (tests/alloc/compiled_models_alloc_test.cpp), and, for models with input channels,
// once more with constant non-zero inputs. A 64-bit FNV-1a hash of the final (t, q, v), the OR of
// all step flags and the number of flagged steps is compared with the table recorded BEFORE the
// restructuring began (tests/scenarios/behaviour_hashes.txt). A moved file, a renamed type or a
// split System must not change a single bit of any trajectory.
//
// The table is data recorded from the code as it stood at the commit that added this test, not a
// physics reference: the physics tests elsewhere say whether those trajectories are right; this
// test says the code still produces exactly them. Regenerate it only for an intended change of
// behaviour, and say why in the commit: with RTMB_WRITE_BEHAVIOUR_HASHES=path, each model's test
// (which still compares) also appends its "key = hash" lines to `path`; sort them (LC_ALL=C sort)
// under the table's header line to make a fresh table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kSteps = 1000;

struct Fnv1a {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  void real(double x) { bytes(&x, sizeof x); }
  void word(std::uint64_t x) { bytes(&x, sizeof x); }
};

// One model under test: its System, the file's dt and what inputs it takes.
struct Subject {
  std::string name;  ///< "configs/four_bar.yaml" or "mechanism:andrews"
  std::shared_ptr<const System> system;
  double dt = 0.0;
};

std::vector<Subject> subjects() {
  std::vector<Subject> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(RTMB_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const ModelFile file = load_model_file(p.string());
    out.push_back({"configs/" + p.filename().string(), make_system(file), file.settings.dt});
  }
  for (const MechanismInfo& m : mechanisms()) {
    out.push_back({"mechanism:" + std::string(m.name), make_mechanism(m.name), m.default_dt});
  }
  return out;
}

// Constant, non-zero inputs: named channels where the System has them, else a generalized force
// on every coordinate. Small, so every mechanism stays in its usual range of motion. They are
// written into the Workspace, the one home of a simulation's inputs.
void apply_inputs(const System& sys, Workspace& ws) {
  if (sys.n_inputs() > 0) {
    std::vector<double> u(static_cast<std::size_t>(sys.n_inputs()));
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = 0.05 * static_cast<double>(i + 1);
    set_inputs(ws, u);
  } else {
    VecRef f = applied_force(ws);
    for (Eigen::Index i = 0; i < f.size(); ++i) f[i] = 0.01 * static_cast<double>(i + 1);
  }
}

std::string run_hash(const Model& model, bool with_inputs) {
  Workspace ws(model);
  State s = initial_state(model);
  // The table's condition: named channels at their initial values (e.g. a coupling's target
  // point) when the Workspace is built, then 0. The order matters for dc-d, whose reference
  // energy E0 is taken when the Workspace is built and depends on the channels. A first table
  // zeroed the channels held by the System before building; that order cannot be expressed once
  // inputs live in the Workspace (issue 13), so the table was recorded again from the same
  // pre-restructuring code (1fc2967) in this order: 52 dc-d entries of the four models with
  // coupling channels differ between the two orders, the other 3748 are identical.
  if (model.system().n_inputs() > 0) {
    set_inputs(ws, std::vector<double>(static_cast<std::size_t>(model.system().n_inputs()), 0.0));
  }
  if (with_inputs) apply_inputs(model.system(), ws);
  std::uint32_t flags = 0;
  long flagged = 0;
  for (long i = 0; i < kSteps; ++i) {
    const StepStatus st = step(model, s, ws);
    flags |= st.flags;
    flagged += st.ok() ? 0 : 1;
  }
  Fnv1a h;
  h.real(s.t);
  for (Eigen::Index i = 0; i < s.q.size(); ++i) h.real(s.q[i]);
  for (Eigen::Index i = 0; i < s.v.size(); ++i) h.real(s.v[i]);
  h.word(flags);
  h.word(static_cast<std::uint64_t>(flagged));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.h));
  return buf;
}

#if defined(__SANITIZE_ADDRESS__)
// The ASan + UBSan build (10-20 times slower on the spatial models, whose implicit methods
// difference the constraint forces: arm6 took 307 s at every 8th combination) compares every
// kSanitizerStride-th combination of each model, so that the sanitizer stage stays within CI's
// time; the count is printed. The optimized build compares them all.
constexpr int kSanitizerStride = 24;
#else
constexpr int kSanitizerStride = 1;
#endif
// The symmetric projections of the larger models are left out of the lock: with the channels at 0
// (see run_hash) arm6's coupling is stiff, the simplified Newton iteration of the symmetric
// projection runs to its limit in every step, and arm6's 26 symproj/symproj-m entries took 436 of
// the 508 s of arm6's run (2026-11-29, a loaded machine; ampc3 + symproj-m alone 101 s), a quarter
// of the test stage's CPU time in CI, and 630 s under ASan (2026-11-27). Their code is the same as
// on the planar models and the spatial four-bar (21 velocities), whose entries stay in the
// optimized build; arm6 (42) still steps with both in the allocation test
// (Configs/CompiledModelAllocations.*/arm6). Its 26 entries were removed from the table
// (2026-11-29), which is otherwise unchanged. The sanitizer build also leaves out the spatial
// four-bar's.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kMaxSymProjVelocities = 20;
#else
constexpr int kMaxSymProjVelocities = 40;
#endif

// key -> hash (or "refused" when the Model constructor rejects the combination) for one model
std::map<std::string, std::string> compute(const Subject& subj, int stride) {
  const std::vector<Method> methods = testing::all_methods();
  const std::vector<StabilizerKind> stabilizers = testing::all_stabilizers();
  std::map<std::string, std::string> out;
  int index = 0;
  for (Method method : methods) {
    for (StabilizerKind stabilizer : stabilizers) {
      if (is_implicit(method) && stabilizer != StabilizerKind::kNone) continue;
      const bool symproj =
          stabilizer == StabilizerKind::kSymProj || stabilizer == StabilizerKind::kSymProjM;
      if (symproj && subj.system->n_v() > kMaxSymProjVelocities) continue;
      if (index++ % stride != 0) continue;
      const Settings settings = testing::step_allocation_settings(method, stabilizer, subj.dt);
      const std::string key = subj.name + " " + std::string(to_string(method)) + " " +
                              std::string(to_string(stabilizer));
      std::unique_ptr<Model> model;
      try {
        model = std::make_unique<Model>(subj.system, settings);
      } catch (const std::invalid_argument&) {
        out[key] = "refused";
        continue;
      }
      out[key] = run_hash(*model, false);
      // the input path, on the methods of the three families that read inputs differently
      if (method == Method::kRk4 || method == Method::kAmpc4 || method == Method::kMidpoint) {
        out[key + " inputs"] = run_hash(*model, true);
      }
    }
  }
  return out;
}

std::string table_path() {
  return std::string(RTMB_SOURCE_DIR) + "/tests/scenarios/behaviour_hashes.txt";
}

std::map<std::string, std::string> read_table() {
  std::map<std::string, std::string> recorded;
  std::ifstream in(table_path());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.rfind(" = ");
    if (eq == std::string::npos) throw std::runtime_error("bad line in the table: " + line);
    recorded[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return recorded;
}

class BehaviourHashes : public ::testing::TestWithParam<std::string> {};

TEST_P(BehaviourHashes, EveryMethodAndStabilizerReproducesTheRecordedTrajectory) {
  const std::map<std::string, std::string> recorded = read_table();
  ASSERT_GT(recorded.size(), 3000u) << "cannot read " << table_path();
  const std::vector<Subject> all = subjects();
  const auto subj =
      std::find_if(all.begin(), all.end(), [&](const Subject& x) { return x.name == GetParam(); });
  ASSERT_NE(subj, all.end());
  const std::map<std::string, std::string> now = compute(*subj, kSanitizerStride);
  ASSERT_FALSE(now.empty());
  int changed = 0;
  for (const auto& [k, v] : now) {
    const auto it = recorded.find(k);
    if (it == recorded.end()) {
      ADD_FAILURE() << "not in the table: " << k;
      continue;
    }
    if (it->second != v) {
      ++changed;
      ADD_FAILURE() << "trajectory changed: " << k << ": recorded " << it->second << ", now " << v;
    }
  }
  if (kSanitizerStride == 1) {  // nothing recorded for this model is left out (optimized build)
    for (const auto& [k, v] : recorded) {
      if (k.compare(0, GetParam().size() + 1, GetParam() + " ") == 0 && now.count(k) == 0) {
        ADD_FAILURE() << "no longer run: " << k;
      }
    }
  }
  // regeneration on request (see the top): the comparison above stands either way
  if (const char* out_path = std::getenv("RTMB_WRITE_BEHAVIOUR_HASHES")) {
    std::ofstream out(out_path, std::ios::app);
    for (const auto& [k, v] : now) out << k << " = " << v << "\n";
  }
  std::printf("%s: %zu trajectories compared (every %d. combination), %d changed\n",
              GetParam().c_str(), now.size(), kSanitizerStride, changed);
}

std::vector<std::string> subject_names() {
  std::vector<std::string> out;
  for (const Subject& s : subjects()) out.push_back(s.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Models,
                         BehaviourHashes,
                         ::testing::ValuesIn(subject_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace rtmb
