// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>

#include "engine/dynamics/dynamics.hpp"
#include "engine/implicit/ggl_integrator.hpp"
#include "engine/implicit/gsssss_integrator.hpp"
#include "engine/integrate/integrator.hpp"
#include "engine/stabilize/stabilized_vector_field.hpp"
#include "engine/stabilize/stabilizer.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

/// Builds the integrator a Method names (fixed-step form); nullptr for the implicit index-3
/// methods (is_implicit: Workspace::Impl::implicit steps them). starter_substeps: RK4 substeps
/// per start-up step of the Adams methods (Settings::starter_substeps). Setup-only.
[[nodiscard]] std::unique_ptr<Integrator> make_integrator(Method method,
                                                          int n_q,
                                                          int n_v,
                                                          int starter_substeps = 8);

/// The integrator stage for the settings: make_integrator's, wrapped in the symmetric projection
/// for StabilizerKind::kSymProj / kSymProjM. Setup-only.
[[nodiscard]] std::unique_ptr<Integrator> make_pipeline_integrator(const System& system,
                                                                   const Settings& settings);

/// Builds the post-step stabilizer for the settings (NoStabilizer for kNone, kBaumgarte and kSvf,
/// which act inside the right-hand side).
/// solver: Model::solver(); kSparse only for the stabilizers sparse_unsupported_reason() accepts.
/// Setup-only.
[[nodiscard]] std::unique_ptr<Stabilizer> make_stabilizer(const System& system,
                                                          const Settings& settings,
                                                          KktSolver solver = KktSolver::kDense,
                                                          InputValues channels = {});

/// Drift and energy of (t, q, v) into status. Buffers come from the caller. RT-safe. On the
/// sparse path G v comes from the CSC values of G (no n_lambda x n_v matrix).
struct DriftMonitor {
  explicit DriftMonitor(const System& system, KktSolver solver = KktSolver::kDense);
  /// channels: the input values System::energy reads.
  void measure(const System& system,
               double t,
               VecCRef q,
               VecCRef v,
               InputValues channels,
               StepStatus& status) noexcept;

  Vec g;              ///< n_lambda
  Vec gv;             ///< n_lambda
  JacobianProduct G;  ///< G(t, q) v
};

/// The pieces of the step pipeline, each sized once for one Model.
struct Workspace::Impl {
  explicit Impl(const Model& model);

  const Model* model;  ///< the model this workspace was built for
  /// The System this simulation evaluates: model->system(), or the per-simulation instance
  /// System::for_simulation() made when the Model's System needs evaluation scratch.
  std::unique_ptr<const System> own_system;
  const System* system;
  Dynamics dynamics;                       ///< stage 1: KKT right-hand side
  std::unique_ptr<Integrator> integrator;  ///< stage 2
  std::unique_ptr<Stabilizer> stabilizer;  ///< stage 3
  DriftMonitor monitor;                    ///< stage 4
  Vec q_new;                               ///< unstabilized/stabilized positions, n_q
  Vec v_new;                               ///< unstabilized/stabilized velocities, n_v
  /// Chin's stabilized vector field, added by `dynamics` to every v' (StabilizerKind::kSvf);
  /// null otherwise.
  std::unique_ptr<StabilizedVectorField> svf;
  /// Implicit index-3 methods replace stages 1-2 (engine/implicit); null for explicit methods.
  std::unique_ptr<ImplicitIntegrator> implicit;
};

}  // namespace rtmb
