// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "apps/rtmb/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "apps/rtmb/app_common.hpp"
#include "net/json_writer.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace rtmb::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Running maxima and counters over the whole run.
struct RunTally {
  long steps = 0;
  long rhs_evaluations = 0;
  long stabilizer_iterations = 0;
  long newton_iterations = 0;
  long flagged_steps = 0;
  std::uint32_t flags = 0;
  double max_position_drift = 0.0;
  double max_velocity_drift = 0.0;

  void add(const StepStatus& st) {
    ++steps;
    rhs_evaluations += st.rhs_evaluations;
    stabilizer_iterations += st.stabilizer_iterations;
    newton_iterations += st.newton_iterations;
    if (st.flags != 0u) ++flagged_steps;
    flags |= st.flags;
    max_position_drift = std::max(max_position_drift, st.position_drift);
    max_velocity_drift = std::max(max_velocity_drift, st.velocity_drift);
  }
};

/// Progress on stderr, about once a second, only for runs that last longer than a second.
class Progress {
 public:
  Progress(double t_end, bool quiet) : t_end_(t_end), quiet_(quiet), tty_(isatty(2) == 1) {}

  void update(const State& s, const RunTally& tally) {
    if (quiet_ || (tally.steps & 63) != 0) return;
    const double now = seconds_since(start_);
    if (now < next_) return;
    next_ = now + 1.0;
    std::fprintf(stderr, "%s[rtmb run] t = %.6g / %.6g s (%3.0f%%), %ld steps, max drift %.2e%s",
                 tty_ ? "\r" : "", s.t, t_end_, 100.0 * s.t / t_end_, tally.steps,
                 tally.max_position_drift, tty_ ? "" : "\n");
    std::fflush(stderr);
    printed_ = true;
  }
  void finish() {
    if (printed_ && tty_) std::fputc('\n', stderr);
  }

 private:
  Clock::time_point start_ = Clock::now();
  double next_ = 1.0;
  double t_end_;
  bool quiet_;
  bool tty_;
  bool printed_ = false;
};

/// Optional CSV trace: t, q..., v..., drifts, energy.
class CsvTrace {
 public:
  CsvTrace(const std::string& path, const System& system, long every) : every_(every) {
    if (path.empty()) return;
    out_.open(path);
    if (!out_) throw std::runtime_error("cannot open CSV file '" + path + "' for writing");
    out_ << "t";
    for (int i = 0; i < system.n_q(); ++i) out_ << ",q" << i;
    for (int i = 0; i < system.n_v(); ++i) out_ << ",v" << i;
    out_ << ",position_drift,velocity_drift,energy\n";
    out_.precision(17);
  }
  void row(const State& s, const StepStatus& st, long step_index, bool force) {
    if (!out_.is_open() || (!force && step_index % every_ != 0)) return;
    out_ << s.t;
    for (Eigen::Index i = 0; i < s.q.size(); ++i) out_ << ',' << s.q[i];
    for (Eigen::Index i = 0; i < s.v.size(); ++i) out_ << ',' << s.v[i];
    out_ << ',' << st.position_drift << ',' << st.velocity_drift << ',' << st.energy << '\n';
  }

 private:
  std::ofstream out_;
  long every_;
};

std::string flag_names(std::uint32_t flags) {
  return step_flag_names(flags);
}

}  // namespace

void add_run_command(CLI::App& app, RunOptions& o, int* exit_code) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Integrate a model offline and print a summary; the last stdout line is one JSON object.");
  run->add_option("model", o.model,
                  "Built-in mechanism (" + mechanism_names() +
                      ") or model file (docs/model-format.md; options given here override its "
                      "integration settings)")
      ->required();
  run->add_option("--method", o.method,
                  "Integrator: " + method_names() + " (dopri5 is adaptive: --rtol/--atol, no --dt)")
      ->capture_default_str()
      ->check(CLI::IsMember({"euler", "heun", "rk4", "dopri5", "ampc3", "ampc4", "ampc5", "mampc3",
                             "mampc4", "mampc5", "ode-midpoint", "gsssss", "newmark", "hht", "wbz",
                             "genalpha", "midpoint", "ggl"}));
  run->add_option("--stabilizer", o.stabilizer,
                  "Drift control: " + stabilizer_names() +
                      " (baumgarte uses --gamma1/--gamma2; pstab is Chin's S-both2)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "baumgarte", "pstab", "sboth", "sfull", "project", "orthproj",
                             "orthproj-m", "symproj", "symproj-m", "dc-b", "dc-c", "dc-d",
                             "partition", "svf"}));
  run->add_option("--gamma1", o.settings.gamma1,
                  "Baumgarte velocity gain [1/s]: g'' + g1 g' + g2 g = 0")
      ->check(kNonNegativeNumber);
  run->add_option("--gamma2", o.settings.gamma2, "Baumgarte position gain [1/s^2]")
      ->check(kNonNegativeNumber);
  run->add_option("--gamma", o.settings.gamma,
                  "svf: gamma [1/s] of Chin's stabilized vector field (eq. 2.58)")
      ->check(kPositiveNumber);
  run->add_option("--svf-variant", o.svf_variant,
                  "svf: correction direction, ggt_inverse (S = G^T (G G^T)^-1, g'' + 2 gamma g' + "
                  "gamma^2 g = 0) or gt (S = G^T)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ggt_inverse", "gt"}));
  run->add_option("--dt", o.dt, "Fixed step [s] (default: the model's)")->check(kPositiveNumber);
  run->add_option("--t-end", o.t_end, "End time [s] (default: the model's)")
      ->check(kPositiveNumber);
  run->add_option("--rtol", o.rtol, "dopri5 relative tolerance")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option("--atol", o.atol, "dopri5 absolute tolerance (default rtol/10)")
      ->check(kPositiveNumber);
  run->add_option("--datol", o.settings.datol,
                  "pstab/sboth: skip stabilization while drift <= DATOL")
      ->check(kNonNegativeNumber);
  run->add_option("--proj-tol", o.settings.projection_tolerance, "project: target ||g||inf")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option("--proj-iter", o.settings.projection_max_iterations,
                  "project: max corrections per step")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_flag("--mass-weighted", o.settings.correction_mass_weighted,
                "dc-b/dc-c/dc-d: mass-weighted instead of unweighted minimum-norm corrections");
  run->add_option("--solver", o.solver,
                  "KKT solver: auto (sparse for body models from n_v >= " +
                      std::to_string(kSparseCrossoverNv) +
                      " where the method and stabilizer have a sparse path; tree for joint-space "
                      "trees from n_v >= " +
                      std::to_string(kTreeCrossoverNv) + "), dense, sparse, tree")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "dense", "sparse", "tree"}));
  run->add_option("--csv", o.csv, "Write t, q, v, drifts and energy to this CSV file");
  run->add_option("--every", o.every, "CSV: one row every N steps")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option("--n", o.mechanism.chain_links, "chain: number of links")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_flag("--loop", o.mechanism.chain_loop, "chain: pin the tip (closed loop)");
  run->add_option("--omega", o.mechanism.robot_omega,
                  "robot_sine: frequency of the tip path sin^2(omega t) [rad/s]")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option(
         "--crank-speed", o.mechanism.crank_speed,
         "deformable_slider_crank: initial crank speed phi'(0) [rad/s] (Chin: 180, 120, 60)")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option("--family", o.family, "gsssss: sub-family u0 | v0 (Hoitink 2011)")
      ->capture_default_str()
      ->check(CLI::IsMember({"u0", "v0"}));
  run->add_option("--rho1", o.settings.implicit.rho1, "gsssss: spectral radius rho1_inf")
      ->capture_default_str();
  run->add_option("--rho2", o.settings.implicit.rho2, "gsssss: spectral radius rho2_inf")
      ->capture_default_str();
  run->add_option("--rho3", o.settings.implicit.rho3,
                  "gsssss: spurious-root spectral radius rho3_inf")
      ->capture_default_str();
  run->add_option("--rho-inf", o.settings.implicit.rho_inf,
                  "hht, wbz, genalpha: spectral radius at infinity")
      ->capture_default_str();
  run->add_option("--option", o.settings.implicit.option,
                  "implicit: constraint-force option 1..4 (2: B(u~)^T lambda~, Hoitink's choice)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4));
  run->add_option("--newton-tol", o.settings.implicit.newton_tolerance,
                  "implicit: Newton increment tolerance")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_option("--newton-iter", o.settings.implicit.newton_max_iterations,
                  "implicit: max Newton iterations")
      ->capture_default_str()
      ->check(kPositiveNumber);
  run->add_flag("--modified-newton", o.settings.implicit.modified_newton,
                "implicit: reuse the factored iteration matrix across iterations and steps");
  run->add_flag("--newton-strict", o.newton_strict,
                "implicit: Hoitink's pure absolute increment test, without accepting round-off");
  run->add_flag("--quiet", o.quiet, "No progress line on stderr");
  run->callback([&o, exit_code, run] {
    o.stabilizer_given = run->count("--stabilizer") > 0;
    o.given.clear();
    for (const CLI::Option* opt : run->get_options()) {
      if (opt->count() > 0) o.given.push_back(opt->get_name());
    }
    *exit_code = run_offline(o);
  });
}

int run_offline(const RunOptions& o) {
  // setup: everything that can fail does so here, with a message, before the first step
  // MODEL is a model file if it names one, else a built-in mechanism
  const bool is_file = names_model_file(o.model);
  std::optional<ModelFile> file;
  const MechanismInfo* info = nullptr;
  if (is_file) {
    try {
      file = load_model_file(o.model);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rtmb run: %s\n", e.what());
      return 2;
    }
    for (const std::string& note : file->notes)
      std::fprintf(stderr, "rtmb run: %s\n", note.c_str());
    if (!file->mechanism.empty()) info = find_mechanism(file->mechanism);
  } else {
    info = find_mechanism(o.model);
    if (info == nullptr) {
      std::fprintf(stderr, "rtmb run: unknown model '%s'; valid models: %s\n", o.model.c_str(),
                   mechanism_names().c_str());
      return 2;
    }
  }
  const auto given = [&](std::string_view name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  std::shared_ptr<const System> system;
  Settings settings = o.settings;  // the options bound to Settings fields as they are
  try {
    system = file ? make_system(*file) : make_mechanism(o.model, o.mechanism);
    settings.method = *parse_method(o.method);
    settings.stabilizer = *parse_stabilizer(o.stabilizer);
    // implicit methods keep g = 0 themselves: no stabilizer unless one was asked for (which
    // Model then rejects with its reason)
    if (is_implicit(settings.method) && !o.stabilizer_given) {
      settings.stabilizer = StabilizerKind::kNone;
    }
    settings.implicit.family = o.family == "u0" ? GsssssFamily::kU0 : GsssssFamily::kV0;
    settings.implicit.newton_round_off_floor = !o.newton_strict;
    settings.dt = o.dt > 0.0 ? o.dt : (info != nullptr ? info->default_dt : settings.dt);
    settings.solver = *parse_solver(o.solver);
    settings.svf_variant = *parse_svf_variant(o.svf_variant);
    if (file) {
      // the file's integration settings, except what the command line gave
      const Settings cli = settings;
      settings = file->settings;
      settings.implicit = cli.implicit;
      if (given("--method")) settings.method = cli.method;
      if (given("--stabilizer") || (given("--method") && is_implicit(cli.method))) {
        settings.stabilizer = cli.stabilizer;
      }
      if (given("--dt")) settings.dt = cli.dt;
      if (given("--gamma1")) settings.gamma1 = cli.gamma1;
      if (given("--gamma2")) settings.gamma2 = cli.gamma2;
      if (given("--gamma")) settings.gamma = cli.gamma;
      if (given("--svf-variant")) settings.svf_variant = cli.svf_variant;
      if (given("--datol")) settings.datol = cli.datol;
      if (given("--proj-tol")) settings.projection_tolerance = cli.projection_tolerance;
      if (given("--proj-iter")) settings.projection_max_iterations = cli.projection_max_iterations;
      if (given("--mass-weighted"))
        settings.correction_mass_weighted = cli.correction_mass_weighted;
      if (given("--solver")) settings.solver = cli.solver;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb run: %s\n", e.what());
    return 2;
  }
  if (settings.stabilizer == StabilizerKind::kBaumgarte && settings.gamma1 == 0.0 &&
      settings.gamma2 == 0.0) {
    std::fprintf(stderr,
                 "rtmb run: --stabilizer baumgarte needs --gamma1 and/or --gamma2 "
                 "(e.g. --gamma1 20 --gamma2 100, Chin's B(20,100))\n");
    return 2;
  }
  if (settings.stabilizer == StabilizerKind::kSvf && settings.gamma == 0.0) {
    std::fprintf(stderr,
                 "rtmb run: --stabilizer svf needs --gamma (e.g. --gamma 10; Chin eq. 2.58)\n");
    return 2;
  }
  // body models in files have no customary horizon: 1 s
  const double t_end = o.t_end > 0.0 ? o.t_end : (info != nullptr ? info->default_t_end : 1.0);
  const bool adaptive = settings.method == Method::kDopri5;
  // a step longer than the run would take no step at all and still report "ok": refuse it
  if (!adaptive && !(settings.dt <= t_end)) {
    std::fprintf(stderr,
                 "rtmb run: --dt %g s is longer than the run (--t-end %g s): no step would be "
                 "taken; give a --dt <= %g\n",
                 settings.dt, t_end, t_end);
    return 2;
  }

  try {
    const Model model(system, settings);
    State s = initial_state(model);
    Workspace ws(model);
    CsvTrace csv(o.csv, model.system(), o.every);
    Progress progress(t_end, o.quiet);
    RunTally tally;

    StepStatus st;
    measure(model, s, ws, st);
    const double energy_start = st.energy;
    csv.row(s, st, 0, true);

    AdaptiveOptions aopt;
    aopt.rtol = o.rtol;
    aopt.atol = o.atol;
    std::unique_ptr<AdaptiveDopri5> dopri;
    if (adaptive) dopri = std::make_unique<AdaptiveDopri5>(model, aopt);
    const long n_fixed = adaptive ? 0 : fixed_step_count(s.t, t_end, settings.dt);

    const auto start = Clock::now();
    bool failed = false;
    for (long i = 0; adaptive ? s.t < t_end : i < n_fixed; ++i) {
      st = StepStatus{};
      if (adaptive) {
        failed = !dopri->step(s, t_end, st);
      } else {
        st = step(model, s, ws);
        failed =
            has_flag(st.flags, StepFlag::kNonFinite) || has_flag(st.flags, StepFlag::kNotConverged);
      }
      tally.add(st);
      if (failed) break;
      csv.row(s, st, tally.steps, false);
      progress.update(s, tally);
    }
    const double wall = seconds_since(start);
    progress.finish();
    measure(model, s, ws, st);
    csv.row(s, st, tally.steps, true);

    // human summary, then the JSON line (always last)
    if (file) {
      std::printf("model %s (%s)\n", model_name(*file).c_str(), file->path.c_str());
    } else {
      std::printf("model %s (%s)\n", info->name.data(), info->description.data());
    }
    std::printf("method %s, stabilizer %s, solver %s, %s\n", o.method.c_str(),
                to_string(settings.stabilizer).data(), to_string(model.solver()).data(),
                adaptive ? ("rtol " + std::to_string(o.rtol)).c_str()
                         : ("dt " + std::to_string(settings.dt) + " s").c_str());
    std::printf("t = %.6g s after %ld steps, %ld RHS evaluations, %.3f s wall (%.3g us/step)\n",
                s.t, tally.steps, tally.rhs_evaluations, wall,
                tally.steps > 0 ? 1e6 * wall / static_cast<double>(tally.steps) : 0.0);
    std::printf("max drift: position %.3e, velocity %.3e; energy %.12g -> %.12g\n",
                tally.max_position_drift, tally.max_velocity_drift, energy_start, st.energy);
    if (is_implicit(settings.method)) {
      std::printf("Newton: %ld iterations, %.3f per step\n", tally.newton_iterations,
                  tally.steps > 0 ? static_cast<double>(tally.newton_iterations) /
                                        static_cast<double>(tally.steps)
                                  : 0.0);
    }
    if (tally.flags != 0u) {
      std::printf("flags: %s on %ld steps\n", flag_names(tally.flags).c_str(), tally.flagged_steps);
    }

    JsonObjectWriter json(JsonNumbers::kDigits17);
    json.field("model", file ? model_name(*file) : std::string(info->name))
        .field("method", to_string(settings.method))
        .field("stabilizer", to_string(settings.stabilizer))
        .field("solver", to_string(model.solver()))
        .field("dt", adaptive ? std::nan("") : settings.dt)
        .field("t", s.t)
        .field("steps", tally.steps)
        .field("rhs_evals", tally.rhs_evaluations)
        .field("max_position_drift", tally.max_position_drift)
        .field("max_velocity_drift", tally.max_velocity_drift)
        .field("energy_start", energy_start)
        .field("energy_end", st.energy)
        .field("q", s.q)
        .field("v", s.v)
        .field("wall_s", wall)
        .field("newton_iterations", tally.newton_iterations)
        .field("flags", flag_names(tally.flags))
        .field("ok", !failed);
    if (adaptive) {
      const AdaptiveCounters& c = dopri->counters();
      json.field("rtol", o.rtol)
          .field("atol", o.atol > 0.0 ? o.atol : o.rtol / 10.0)
          .field("nstep", c.nstep)
          .field("naccpt", c.naccpt)
          .field("nrejct", c.nrejct)
          .field("nfcn", c.nfcn)
          .field("nstab", c.nstab);
    }
    std::printf("%s\n", json.str().c_str());
    if (failed) {
      if (is_implicit(settings.method)) {
        // issue 15: for an implicit index-3 method a smaller dt worsens the conditioning of the
        // iteration matrix (its constraint rows scale like 1/dt^2; Bottasso, Bauchau & Cardona
        // 2007) and a stabilizer is refused; what helps is letting Newton stop earlier or run
        // longer
        std::fprintf(stderr,
                     "rtmb run: integration failed at t = %.9g (%s); the Newton iteration of "
                     "%s did not converge: try a looser --newton-tol (now %g) or more "
                     "--newton-iter (now %d)\n",
                     s.t, flag_names(tally.flags).c_str(), to_string(settings.method).data(),
                     settings.implicit.newton_tolerance, settings.implicit.newton_max_iterations);
      } else {
        std::fprintf(stderr,
                     "rtmb run: integration failed at t = %.9g (%s); try a smaller --dt or "
                     "a stabilizer\n",
                     s.t, flag_names(tally.flags).c_str());
      }
      return 3;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb run: %s\n", e.what());
    return 2;
  }
}

}  // namespace rtmb::app
