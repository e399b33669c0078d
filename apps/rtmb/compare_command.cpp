// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb compare MODEL`: the method comparison report of issue 6. Runs method x stabilizer
// combinations at the model's fixed step, measures drift, energy, error against the finest run,
// cost and step time, and writes a Markdown and a CSV table and gnuplot PNGs of drift and energy
// over time.
#include "apps/rtmb/compare_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "apps/rtmb/run_program.hpp"
#include "apps/rtmb/subcommand.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"

namespace rtmb::app {
namespace {

using Clock = std::chrono::steady_clock;

// Default set: one-step and multistep methods with the drift controls they are meant for.
// Baumgarte gains are Wu et al.'s alpha = beta = 5 (gamma1 = 10, gamma2 = 25).
constexpr const char* kDefaultCombos =
    "rk4:none,rk4:baumgarte,rk4:pstab,rk4:orthproj,rk4:dc-c,rk4:dc-d,ampc3:baumgarte,"
    "mampc3:baumgarte,mampc4:pstab,ode-midpoint:orthproj,ode-midpoint:symproj";
constexpr double kBaumgarteAlpha = 5.0;
constexpr int kFinestRefinement = 10;  ///< the finest run: rk4 + pstab at dt / 10
constexpr std::size_t kMaxPlotPoints = 2000;

struct Combo {
  std::string method;
  std::string stabilizer;
};

struct Sample {
  double t;
  double position_drift;
  double energy_deviation;
};

struct Result {
  Combo combo;
  double max_position_drift = 0.0;
  double max_velocity_drift = 0.0;
  double max_energy_drift = 0.0;  ///< max |E - E0| [J]
  double error_vs_finest = 0.0;   ///< ||q(T) - q_finest(T)||inf
  long steps = 0;
  long rhs_evaluations = 0;
  double median_step_us = 0.0;
  std::uint32_t flags = 0;
  Vec q_final;  ///< q(t_end)
  std::vector<Sample> series;
};

std::vector<Combo> parse_combos(const std::string& list) {
  std::vector<Combo> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    Combo c{item.substr(0, colon), colon == std::string::npos ? "pstab" : item.substr(colon + 1)};
    if (!parse_method(c.method) || *parse_method(c.method) == Method::kDopri5) {
      throw std::invalid_argument("unknown or non-fixed-step method '" + c.method +
                                  "'; valid: " + method_names() + " (not dopri5)");
    }
    if (!parse_stabilizer(c.stabilizer)) {
      throw std::invalid_argument("unknown stabilizer '" + c.stabilizer +
                                  "'; valid: " + stabilizer_names());
    }
    out.push_back(c);
  }
  if (out.empty()) throw std::invalid_argument("--methods names no METHOD:STABILIZER pair");
  return out;
}

Settings settings_for(const Combo& c, double dt) {
  Settings s;
  s.method = *parse_method(c.method);
  s.stabilizer = *parse_stabilizer(c.stabilizer);
  s.dt = dt;
  if (s.stabilizer == StabilizerKind::kBaumgarte) {
    s.gamma1 = 2.0 * kBaumgarteAlpha;
    s.gamma2 = kBaumgarteAlpha * kBaumgarteAlpha;
  }
  return s;
}

Result run_one(const std::string& model_name, const Combo& combo, double dt, double t_end) {
  const Model model(make_mechanism(model_name), settings_for(combo, dt));
  Workspace ws(model);
  State s = initial_state(model);
  StepStatus st;
  measure(model, s, ws, st);
  const double e0 = st.energy;
  Result r;
  r.combo = combo;
  const long n = std::lround(t_end / dt);
  const long stride = std::max<long>(1, n / static_cast<long>(kMaxPlotPoints));
  std::vector<double> step_us;
  step_us.reserve(static_cast<std::size_t>(n));
  r.series.reserve(kMaxPlotPoints + 2);
  r.series.push_back({0.0, st.position_drift, 0.0});
  for (long i = 0; i < n; ++i) {
    const auto start = Clock::now();
    st = step(model, s, ws);
    step_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    ++r.steps;
    r.rhs_evaluations += st.rhs_evaluations;
    r.flags |= st.flags;
    if (has_flag(st.flags, StepFlag::kNonFinite)) break;
    const double de = std::isfinite(st.energy) ? std::abs(st.energy - e0) : 0.0;
    r.max_position_drift = std::max(r.max_position_drift, st.position_drift);
    r.max_velocity_drift = std::max(r.max_velocity_drift, st.velocity_drift);
    r.max_energy_drift = std::max(r.max_energy_drift, de);
    if ((i + 1) % stride == 0 || i + 1 == n) r.series.push_back({s.t, st.position_drift, de});
  }
  if (!step_us.empty()) {
    auto mid = step_us.begin() + static_cast<std::ptrdiff_t>(step_us.size() / 2);
    std::nth_element(step_us.begin(), mid, step_us.end());
    r.median_step_us = *mid;
  }
  r.q_final = s.q;
  return r;
}

Vec final_q(const std::string& model_name, const Combo& combo, double dt, double t_end) {
  const Model model(make_mechanism(model_name), settings_for(combo, dt));
  Workspace ws(model);
  State s = initial_state(model);
  const long n = std::lround(t_end / dt);
  for (long i = 0; i < n; ++i) (void)step(model, s, ws);
  return s.q;
}

std::string flag_text(std::uint32_t flags) {
  return flags == 0u ? "-" : step_flag_names(flags, "+");
}

constexpr const char* kColumns[] = {
    "method",          "stabilizer", "max_position_drift", "max_velocity_drift", "max_energy_drift",
    "error_vs_finest", "steps",      "rhs_evaluations",    "median_step_us",     "flags"};

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

void write_tables(const std::filesystem::path& dir,
                  const std::string& model,
                  double dt,
                  double t_end,
                  const std::vector<Result>& results) {
  std::ofstream csv(dir / "compare.csv");
  std::ofstream md(dir / "compare.md");
  if (!csv || !md) throw std::runtime_error("cannot write the tables into " + dir.string());
  md << "# rtmb compare " << model << "\n\n"
     << "dt = " << dt << " s, t_end = " << t_end
     << " s. Drifts are max ||g||inf, max ||G v + g_t||inf and max |E - E0| over all steps; "
        "error_vs_finest is ||q(t_end) - q_ref||inf against rk4 + pstab at dt/"
     << kFinestRefinement << "; median_step_us is the median wall time of one step.\n\n|";
  for (const char* c : kColumns) {
    csv << (c == kColumns[0] ? "" : ",") << c;
    md << ' ' << c << " |";
  }
  csv << '\n';
  md << "\n|";
  for (std::size_t i = 0; i < std::size(kColumns); ++i) md << (i < 2 ? "---|" : "---:|");
  md << '\n';
  for (const Result& r : results) {
    const std::string cells[] = {r.combo.method,
                                 r.combo.stabilizer,
                                 fmt(r.max_position_drift),
                                 fmt(r.max_velocity_drift),
                                 fmt(r.max_energy_drift),
                                 fmt(r.error_vs_finest),
                                 std::to_string(r.steps),
                                 std::to_string(r.rhs_evaluations),
                                 fmt(r.median_step_us),
                                 flag_text(r.flags)};
    md << '|';
    for (std::size_t i = 0; i < std::size(cells); ++i) {
      csv << (i == 0 ? "" : ",") << cells[i];
      md << ' ' << cells[i] << " |";
    }
    csv << '\n';
    md << '\n';
  }
  md << "\nPlots: drift.png (max-norm position drift over time), energy.png (|E - E0| over "
        "time).\n";
}

// gnuplot: one data file per run (t, drift, |dE|), log-scale y; zeros are lifted to 1e-18 so that
// exact-zero samples (e.g. the initial state) stay on the plot. gnuplot runs in `dir` without a
// shell, and its script names only files of fixed names there: the --out path the user gave
// never appears in a command line or in the script (where a quote in it could end a string and
// run gnuplot's own `system` command). The model and method names are validated ones.
bool write_plots(const std::filesystem::path& dir,
                 const std::string& model,
                 const std::vector<Result>& results) {
  for (std::size_t k = 0; k < results.size(); ++k) {
    std::ofstream dat(dir / ("series_" + std::to_string(k) + ".dat"));
    dat.precision(10);
    for (const Sample& p : results[k].series) {
      dat << p.t << ' ' << std::max(p.position_drift, 1e-18) << ' '
          << std::max(p.energy_deviation, 1e-18) << '\n';
    }
  }
  std::ofstream gp(dir / "plot.gp");
  gp << "set terminal pngcairo size 1100,700 noenhanced\nset logscale y\nset format y '%.0e'\n"
     << "set key outside right\nset grid\nset xlabel 't [s]'\n";
  const auto plot = [&](const char* file, const char* title, int column) {
    gp << "set output '" << file << "'\nset title '" << model << ": " << title << "'\nplot ";
    for (std::size_t k = 0; k < results.size(); ++k) {
      gp << (k == 0 ? "" : ", ") << "'series_" << k << ".dat' using 1:" << column
         << " with lines dt " << (k / 8 + 1) << " title '" << results[k].combo.method << " + "
         << results[k].combo.stabilizer << "'";
    }
    gp << "\n";
  };
  plot("drift.png", "position drift ||g||inf", 2);
  plot("energy.png", "energy drift |E - E0| [J]", 3);
  gp.close();
  return run_program({"gnuplot", "plot.gp"}, dir) == 0;
}

}  // namespace

void add_compare_command(CLI::App& app, CompareOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "compare",
      "Run method x stabilizer combinations on a model; write compare.md, compare.csv, "
      "drift.png and energy.png.",
      exit_code, [&o] { return run_compare(o); });
  cmd->add_option("model", o.model, "Built-in mechanism: " + mechanism_names())->required();
  cmd->add_option(
      "--methods", o.methods,
      std::string("Comma-separated METHOD:STABILIZER pairs (default: ") + kDefaultCombos + ")");
  cmd->add_option("--t-end", o.t_end, "End time [s] (default: the model's)")
      ->check(kPositiveNumber);
  cmd->add_option("--dt", o.dt, "Fixed step [s] (default: the model's)")->check(kPositiveNumber);
  cmd->add_option("--out", o.out, "Output directory")->capture_default_str();
}

int run_compare(const CompareOptions& o) {
  const MechanismInfo* info = find_mechanism(o.model);
  if (info == nullptr) {
    std::fprintf(stderr, "rtmb compare: unknown model '%s'; valid models: %s\n", o.model.c_str(),
                 mechanism_names().c_str());
    return 2;
  }
  std::vector<Combo> combos;
  try {
    combos = parse_combos(o.methods.empty() ? kDefaultCombos : o.methods);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb compare: %s\n", e.what());
    return 2;
  }
  const double dt = o.dt > 0.0 ? o.dt : info->default_dt;
  const double t_end = o.t_end > 0.0 ? o.t_end : info->default_t_end;
  // every combination must build before any output exists (issue 15: midpoint:pstab threw out
  // of main and left an empty folder)
  for (const Combo& c : combos) {
    try {
      (void)Model(make_mechanism(o.model), settings_for(c, dt));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rtmb compare: %s:%s: %s\n", c.method.c_str(), c.stabilizer.c_str(),
                   e.what());
      return 2;
    }
  }
  const std::filesystem::path dir(o.out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "rtmb compare: cannot create '%s': %s\n", o.out.c_str(),
                 ec.message().c_str());
    return 2;
  }

  const Vec q_ref = final_q(o.model, {"rk4", "pstab"}, dt / kFinestRefinement, t_end);
  std::vector<Result> results;
  for (const Combo& c : combos) {
    std::fprintf(stderr, "[rtmb compare] %s + %s\n", c.method.c_str(), c.stabilizer.c_str());
    Result r = run_one(o.model, c, dt, t_end);
    if (has_flag(r.flags, StepFlag::kNonFinite)) {
      r.error_vs_finest = std::numeric_limits<double>::infinity();
    } else {
      r.error_vs_finest = (r.q_final - q_ref).lpNorm<Eigen::Infinity>();
    }
    results.push_back(std::move(r));
  }
  try {
    write_tables(dir, o.model, dt, t_end, results);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb compare: %s\n", e.what());
    return 2;
  }
  std::ifstream md(dir / "compare.md");
  std::printf("%s", std::string(std::istreambuf_iterator<char>(md), {}).c_str());
  if (!write_plots(dir, o.model, results)) {
    std::fprintf(stderr,
                 "rtmb compare: gnuplot failed or is missing (Debian: gnuplot-nox, see "
                 "scripts/install-deps.sh); tables are in %s\n",
                 o.out.c_str());
    return 4;
  }
  std::fprintf(stderr, "[rtmb compare] wrote %s/{compare.md,compare.csv,drift.png,energy.png}\n",
               o.out.c_str());
  return 0;
}

}  // namespace rtmb::app
