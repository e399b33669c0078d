// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <span>
#include <vector>

#include "engine/kkt/kkt_backend.hpp"
#include "engine/stabilize/stabilized_vector_field.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// Pipeline stage 1: the right-hand side of the index-1 (KKT) form.
///
/// At every evaluation it assembles and solves (Chin 1995 eq. 4.2/4.22, the descriptor form
/// eq. 2.2-2.3 differentiated twice; seed 000_43485023299f7749.txt)
///
///     [ M  G^T ] [ v'     ]   [ f(t,q,v) + u                            ]
///     [ G   0  ] [ lambda ] = [ -L(t,q,v) - g1 (G v + g_t) - g2 g(t,q)  ]
///
/// The Baumgarte terms (g1, g2) = B(gamma1, gamma2) realise g'' + g1 g' + g2 g = 0 (Chin eq. 2.14);
/// with both zero this is plain index reduction, whose drift the post-stabilizers remove.
/// u is the external generalized force of applied() (issue 3), and f reads the values of the
/// System's named input channels, inputs() (issue 4): both are this simulation's inputs, held
/// here (the Workspace owns its Dynamics) so that the System itself stays immutable.
/// The KKT system is solved by DenseKkt or, for body-coordinate models, BlockKkt in O(N)
/// (KktBackend; `solver` is Model::solver(), never kAuto).
class Dynamics {
 public:
  explicit Dynamics(const System& system, KktSolver solver = KktSolver::kDense);

  /// Enables Baumgarte stabilization B(gamma1, gamma2) [1/s, 1/s^2]; (0, 0) disables it.
  void set_baumgarte(double gamma1, double gamma2) noexcept;

  /// Adds Chin's stabilized vector field term to every v' after the KKT solve (StabilizerKind::
  /// kSvf, eq. 2.58); nullptr (the default) disables it. The field is owned by the caller and
  /// must outlive this Dynamics' evaluations.
  void set_stabilized_field(StabilizedVectorField* field) noexcept { svf_ = field; }

  /// Evaluates v' (size n_v) at (t, q, v); lambda() holds the multipliers afterwards.
  /// Sets StepFlag::kSingularKkt in status on a singular KKT matrix. RT-safe.
  void evaluate(double t, VecCRef q, VecCRef v, VecRef out_vdot, StepStatus& status) noexcept;

  /// Generalized applied force added to f(t, q, v) in every evaluation [N | N m], size n_v; zero
  /// after construction. Held over a step (zero-order hold of a sampled input).
  [[nodiscard]] Vec& applied() noexcept { return applied_; }
  [[nodiscard]] const Vec& applied() const noexcept { return applied_; }

  /// Values of the System's named input channels that every evaluation passes to
  /// System::forces, size n_inputs(); System::initial_input after construction. Held over a step.
  [[nodiscard]] std::span<double> inputs() noexcept { return inputs_; }
  [[nodiscard]] InputValues inputs() const noexcept { return inputs_; }

  [[nodiscard]] const System& system() const noexcept { return system_; }
  /// Multipliers of the last evaluation [N | N m], size n_lambda.
  [[nodiscard]] const Vec& lambda() const noexcept { return lambda_; }
  /// Total evaluations since construction (each is one KKT factorization and solve).
  [[nodiscard]] long evaluations() const noexcept { return evaluations_; }

 private:
  const System& system_;
  KktBackend kkt_;
  double gamma1_ = 0.0;
  double gamma2_ = 0.0;
  Vec f_;                       ///< applied forces, n_v
  Vec applied_;                 ///< external generalized force (inputs), n_v
  std::vector<double> inputs_;  ///< named input channel values, n_inputs
  Vec rhs_;                     ///< constraint right-hand side, n_lambda
  Vec g_;                       ///< scratch g or g_t, n_lambda
  Vec lambda_;                  ///< multipliers of the last evaluation, n_lambda
  long evaluations_ = 0;

  /// Not owned; null unless the stabilizer is kSvf.
  StabilizedVectorField* svf_ = nullptr;
};

}  // namespace rtmb
