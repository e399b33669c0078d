// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The step pipeline (docs/architecture.md "The step in detail"):
//   integrate -> stabilize -> guard -> monitor.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/integrate/adams.hpp"
#include "engine/integrate/explicit_rk.hpp"
#include "engine/integrate/implicit_midpoint.hpp"
#include "engine/integrate/symmetric_projection.hpp"
#include "engine/stabilize/coordinate_partitioning.hpp"
#include "engine/stabilize/direct_correction.hpp"
#include "engine/stabilize/post_stabilizer.hpp"
#include "engine/stabilize/projection_stabilizer.hpp"
#include "engine/stabilize/sfull_stabilizer.hpp"
#include "engine/step/workspace_impl.hpp"

namespace rtmb {

namespace {

// The explicit Runge-Kutta methods by their tableaus (explicit_rk.hpp).
struct RkMethod {
  Method method;
  const ButcherTableau& (*tableau)() noexcept;
};
constexpr std::array<RkMethod, 4> kRkMethods{{
    {Method::kEuler, euler_tableau},
    {Method::kHeun, heun_tableau},
    {Method::kRk4, rk4_tableau},
    {Method::kDopri5, dopri5_tableau},
}};

// The Adams predictor-correctors by m and the corrector output they keep (adams.hpp).
struct AdamsMethod {
  Method method;
  int steps;
  AdamsVariant variant;
};
constexpr std::array<AdamsMethod, 6> kAdamsMethods{{
    {Method::kAmpc3, 3, AdamsVariant::kAmpc},
    {Method::kAmpc4, 4, AdamsVariant::kAmpc},
    {Method::kAmpc5, 5, AdamsVariant::kAmpc},
    {Method::kMampc3, 3, AdamsVariant::kMampc},
    {Method::kMampc4, 4, AdamsVariant::kMampc},
    {Method::kMampc5, 5, AdamsVariant::kMampc},
}};

}  // namespace

std::unique_ptr<Integrator> make_integrator(Method method, int n_q, int n_v, int starter_substeps) {
  // A switch over every Method around the tables: -Wswitch (an error here) stops a new Method
  // from compiling until it is sorted into a group (and into that group's table), where the
  // tables alone would hand step() a null integrator for it.
  switch (method) {
    case Method::kEuler:
    case Method::kHeun:
    case Method::kRk4:
    case Method::kDopri5:
      for (const RkMethod& rk : kRkMethods) {
        if (rk.method == method) return std::make_unique<ExplicitRk>(rk.tableau(), n_q, n_v);
      }
      break;
    case Method::kAmpc3:
    case Method::kAmpc4:
    case Method::kAmpc5:
    case Method::kMampc3:
    case Method::kMampc4:
    case Method::kMampc5:
      for (const AdamsMethod& adams : kAdamsMethods) {
        if (adams.method == method) {
          return std::make_unique<AdamsPece>(adams.steps, adams.variant, starter_substeps, n_q,
                                             n_v);
        }
      }
      break;
    case Method::kOdeMidpoint:
      return std::make_unique<ImplicitMidpoint>(n_q, n_v);
    case Method::kGsssss:  // the implicit index-3 methods: Workspace::Impl::implicit instead
    case Method::kNewmark:
    case Method::kHht:
    case Method::kWbz:
    case Method::kGenAlpha:
    case Method::kMidpoint:
    case Method::kGgl:
      return nullptr;
  }
  return nullptr;
}

std::unique_ptr<Stabilizer> make_stabilizer(const System& system,
                                            const Settings& settings,
                                            KktSolver solver,
                                            InputValues channels) {
  const NewtonLimits projection_limits{settings.projection_tolerance,
                                       settings.projection_max_iterations};
  switch (settings.stabilizer) {
    case StabilizerKind::kNone:
    case StabilizerKind::kBaumgarte:
    case StabilizerKind::kSvf:  // in the right-hand side (Workspace::Impl::svf)
      return std::make_unique<NoStabilizer>();
    case StabilizerKind::kPStab:
      return std::make_unique<PostStabilizer>(system, 2, settings.datol, solver,
                                              settings.stabilize_energy, channels);
    case StabilizerKind::kSBoth:
      return std::make_unique<PostStabilizer>(system, 1, settings.datol, solver,
                                              settings.stabilize_energy, channels);
    case StabilizerKind::kSFull:
      return std::make_unique<SFullStabilizer>(system);
    case StabilizerKind::kProject:
      return std::make_unique<ProjectionStabilizer>(system, projection_limits, solver);
    case StabilizerKind::kSymProj:  // act around the integrator (make_pipeline_integrator)
    case StabilizerKind::kSymProjM:
      return std::make_unique<NoStabilizer>();
    case StabilizerKind::kPartition:
      return std::make_unique<CoordinatePartitioning>(system, projection_limits);
    case StabilizerKind::kOrthProj:
    case StabilizerKind::kOrthProjM:
    case StabilizerKind::kDcB:
    case StabilizerKind::kDcC:
    case StabilizerKind::kDcD: {
      const auto variant = settings.stabilizer == StabilizerKind::kDcC
                               ? DirectCorrectionVariant::kSimultaneous
                           : settings.stabilizer == StabilizerKind::kDcD
                               ? DirectCorrectionVariant::kSimultaneousEnergy
                               : DirectCorrectionVariant::kSequential;
      const bool mass =
          settings.stabilizer == StabilizerKind::kOrthProjM ||
          (settings.correction_mass_weighted && settings.stabilizer != StabilizerKind::kOrthProj);
      return std::make_unique<DirectCorrection>(
          system, variant, mass ? CorrectionMetric::kMass : CorrectionMetric::kEuclidean,
          settings.projection_tolerance, settings.projection_max_iterations, channels);
    }
  }
  return nullptr;
}

std::unique_ptr<Integrator> make_pipeline_integrator(const System& system,
                                                     const Settings& settings) {
  auto base =
      make_integrator(settings.method, system.n_q(), system.n_v(), settings.starter_substeps);
  if (settings.stabilizer != StabilizerKind::kSymProj &&
      settings.stabilizer != StabilizerKind::kSymProjM) {
    return base;
  }
  return std::make_unique<SymmetricProjection>(
      std::move(base), system, settings.projection_tolerance, settings.projection_max_iterations,
      settings.stabilizer == StabilizerKind::kSymProjM);
}

DriftMonitor::DriftMonitor(const System& system, KktSolver solver)
    : g(Vec::Zero(system.n_lambda())), gv(Vec::Zero(system.n_lambda())), G(system, solver) {}

void DriftMonitor::measure(const System& system,
                           double t,
                           VecCRef q,
                           VecCRef v,
                           InputValues channels,
                           StepStatus& status) noexcept {
  // g and G at the same (t, q): one fused System pass on the sparse path
  system.constraint_rate(t, q, gv);
  G.add_with_constraints(t, q, v, gv, g);
  status.position_drift = g.size() > 0 ? g.lpNorm<Eigen::Infinity>() : 0.0;
  status.velocity_drift = gv.size() > 0 ? gv.lpNorm<Eigen::Infinity>() : 0.0;
  status.energy = system.has_energy() ? system.energy(t, q, v, channels)
                                      : std::numeric_limits<double>::quiet_NaN();
}

Workspace::Impl::Impl(const Model& m)
    : model(&m),
      own_system(m.system().for_simulation()),
      system(own_system ? own_system.get() : &m.system()),
      dynamics(*system, m.solver()),
      integrator(make_pipeline_integrator(*system, m.settings())),
      stabilizer(make_stabilizer(*system, m.settings(), m.solver(), dynamics.inputs())),
      monitor(*system, m.solver()),
      q_new(Vec::Zero(system->n_q())),
      v_new(Vec::Zero(system->n_v())) {
  // Baumgarte feedback in the right-hand side: the `baumgarte` stabilizer alone, or gains set
  // together with a post-step stabilizer (Wu et al. 2000's Baumgarte combined with PStab,
  // issue 6)
  const Settings& st = m.settings();
  if (st.stabilizer == StabilizerKind::kBaumgarte || st.gamma1 != 0.0 || st.gamma2 != 0.0) {
    dynamics.set_baumgarte(st.gamma1, st.gamma2);
  }
  if (st.stabilizer == StabilizerKind::kSvf) {
    svf = std::make_unique<StabilizedVectorField>(*system, st.gamma, st.svf_variant);
    dynamics.set_stabilized_field(svf.get());
  }
  if (m.settings().method == Method::kGgl) {
    implicit = std::make_unique<GglIntegrator>(*system, m.settings().implicit);
  } else if (is_implicit(m.settings().method)) {
    implicit = std::make_unique<GsssssIntegrator>(*system, gsssss_parameters(m.settings()),
                                                  m.settings().implicit);
  }
  if (implicit) implicit->set_inputs(&dynamics.applied(), dynamics.inputs());
}

Workspace::Workspace(const Model& model) : impl_(std::make_unique<Impl>(model)) {}
Workspace::~Workspace() = default;

State initial_state(const Model& model) {
  State s(model.system().n_q(), model.system().n_v());
  model.system().initial_state(s);
  return s;
}

StepStatus step(const Model& model, State& s, Workspace& ws) noexcept {
  StepStatus status;
  Workspace::Impl& w = ws.impl();
  const double h = model.settings().dt;
  const double t_new = s.t + h;
  const StepFrom from{s.t, h, s.q, s.v};
  const StepTo to{w.q_new, w.v_new};

  if (w.implicit) {
    // 1-2. implicit index-3 step: Newton keeps g = 0 itself, no stabilizer (engine/implicit);
    // on non-convergence the state stays at the start of the step
    if (!w.implicit->step(from, to, status)) return status;
  } else {
    // 1. integrate: unstabilized one-step result (Chin eq. 3.22)
    w.integrator->advance(w.dynamics, from, to, status);

    // 2. stabilize at the new time (rheonomic constraints are evaluated at t + h)
    w.stabilizer->apply(t_new, w.q_new, w.v_new, status);
  }

  // 3. guard: never hand a non-finite state to the caller; keep the last good one
  if (!w.q_new.allFinite() || !w.v_new.allFinite()) {
    status.set(StepFlag::kNonFinite);
    return status;
  }
  s.q = w.q_new;
  s.v = w.v_new;
  s.t = t_new;

  // 4. monitor
  if (model.settings().monitor) {
    w.monitor.measure(*w.system, s.t, s.q, s.v, w.dynamics.inputs(), status);
  }
  return status;
}

VecRef applied_force(Workspace& ws) noexcept {
  return ws.impl().dynamics.applied();
}

VecCRef applied_force(const Workspace& ws) noexcept {
  return ws.impl().dynamics.applied();
}

long fixed_step_count(double t, double t_end, double dt) noexcept {
  const double span = (t_end - t) / dt - 1e-9;
  return span > 0.0 ? static_cast<long>(std::ceil(span)) : 0;
}

std::span<double> input_values(Workspace& ws) noexcept {
  return ws.impl().dynamics.inputs();
}

InputValues input_values(const Workspace& ws) noexcept {
  return ws.impl().dynamics.inputs();
}

void set_inputs(Workspace& ws, InputValues u) noexcept {
  const std::span<double> to = input_values(ws);
  std::copy_n(u.begin(), std::min(u.size(), to.size()), to.begin());
}

void acceleration(
    Workspace& ws, double t, VecCRef q, VecCRef v, VecRef out_vdot, StepStatus& status) noexcept {
  ws.impl().dynamics.evaluate(t, q, v, out_vdot, status);
}

void stabilize(Workspace& ws, double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  ws.impl().stabilizer->apply(t, q, v, status);
}

void measure(const Model& /*model*/, const State& s, Workspace& ws, StepStatus& status) noexcept {
  Workspace::Impl& w = ws.impl();
  w.monitor.measure(*w.system, s.t, s.q, s.v, w.dynamics.inputs(), status);
}

}  // namespace rtmb
