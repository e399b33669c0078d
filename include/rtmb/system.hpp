// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "rtmb/state.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Values of a System's named input channels (System::n_inputs()), channel i at index i.
using InputValues = std::span<const double>;

/// Structure of a sparse matrix in compressed sparse column (CSC) form, without values: column c
/// holds the row indices inner[outer[c]] .. inner[outer[c + 1] - 1], ascending. A System that
/// has a sparse structure (System::sparse_structure) describes M and G with it once at setup, then
/// writes only the values, in this order, at every evaluation (System::mass_values,
/// System::jacobian_values).
struct SparsePattern {
  int rows = 0;
  int cols = 0;
  std::vector<int> outer;  ///< cols + 1 column starts into inner
  std::vector<int> inner;  ///< row index of each stored entry

  [[nodiscard]] int nonzeros() const noexcept { return static_cast<int>(inner.size()); }
};

/// M(t,q)^-1 applied without forming M: a System whose mass matrix has an O(n) factorization
/// (a joint-space tree: the articulated-body algorithm, engine/multibody/articulated_solve.hpp)
/// returns one from System::mass_factor(), and the tree KKT backend (engine/kkt/tree_kkt.hpp)
/// solves [M G^T; G 0] through it and the small G M^-1 G^T (issue 19). One per simulation; it
/// evaluates the System it came from (its per-simulation instance).
class MassFactor {
 public:
  MassFactor() = default;
  virtual ~MassFactor() = default;
  MassFactor(const MassFactor&) = delete;
  MassFactor& operator=(const MassFactor&) = delete;
  /// Factors M(t,q); false when M is singular or not finite there. RT-safe.
  [[nodiscard]] virtual bool factor(double t, VecCRef q) noexcept = 0;
  /// x <- M^-1 x with the last factor(). RT-safe.
  virtual void solve(VecRef x) noexcept = 0;
};

/// A constrained mechanical system in descriptor form (Chin 1995 eq. 2.2, 4.1):
///
///     q' = v
///     M(t,q) v' = f(t,q,v) - G(t,q)^T lambda
///     0 = g(t,q)
///
/// with G = dg/dq (n_lambda x n_v), the velocity invariant G v + g_t = 0 and the
/// second-derivative remainder L(t,q,v) defined by  d^2 g/dt^2 = G v' + L
/// (Chin's routine GCNQQ; L = g_tt + 2 g_tq v + g_qq(v,v), reference/post-stabilization-chin1995.md
/// §1.1).
///
/// Sizes are fixed at construction. Every evaluation writes into caller-owned storage that
/// already has the right size, so implementations must not allocate, lock, log or throw: all
/// evaluation methods are called on the real-time path.
///
/// M may be singular if it is positive definite on ker G (Chin Lemma 4.1); the engine never
/// inverts M on its own, it always solves the KKT system [M G^T; G 0].
///
/// Coordinates: q' = v (n_q == n_v) for every system in this release; the interface keeps n_q
/// and n_v apart so that quaternion bodies (q' = T(q) v) can be added without changing callers.
///
/// Nonholonomic rows (issue 16; Chin 1995 §4.6, eq. 3.72-3.76, reference
/// post-stabilization-chin1995.md §1.6 and §3.11). The last n_lambda - n_holonomic rows are
/// velocity-level constraints A(t,q) v + a(t,q) = 0 that are the derivative of no g(t,q) (a
/// wheel rolling without slip, a knife edge). A System states them through the same methods, so
/// that every consumer of G v + g_t and of the index-1 row G v' + L = 0 (the KKT solves, every
/// explicit integrator, Baumgarte's velocity term, PStab's velocity pass, the velocity drift)
/// handles them unchanged:
///   constraints()      0 in those rows: they have no position-level residual;
///   jacobian()         A(t,q) (the velocity Jacobian, not a derivative of g);
///   constraint_rate()  a(t,q), so that G v + g_t = A v + a is the row's velocity residual;
///   curvature()        L = d/dt(A v + a) - A v' = (dA/dq v + A_t) v + a_q v + a_t;
///   velocity_constraint_jacobian()  d(A v + a)/dq.
/// Why the zero rows: the position-level operations (PStab's position pass, the projections,
/// Baumgarte's position term, the position drift) then see no residual there and change nothing
/// for them, while they still share the one KKT matrix [M G^T; G 0] of the step: a position
/// correction keeps A dq = 0 (it moves q only along directions the rolling constraints allow, to
/// first order), and the factorization serves all four PStab solves (Chin Remark 4.2). PStab's
/// velocity pass on these rows is exactly Chin's nonholonomic post-stabilization (3.75).
class System {
 public:
  System(int n_q, int n_v, int n_lambda) noexcept
      : n_q_(n_q), n_v_(n_v), n_lambda_(n_lambda), n_holonomic_(n_lambda) {}
  /// A system whose rows n_holonomic .. n_lambda - 1 are nonholonomic (see above).
  System(int n_q, int n_v, int n_lambda, int n_holonomic) noexcept
      : n_q_(n_q), n_v_(n_v), n_lambda_(n_lambda), n_holonomic_(n_holonomic) {}
  virtual ~System() = default;
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  [[nodiscard]] int n_q() const noexcept { return n_q_; }
  [[nodiscard]] int n_v() const noexcept { return n_v_; }
  [[nodiscard]] int n_lambda() const noexcept { return n_lambda_; }
  /// Rows 0 .. n_holonomic - 1 are position constraints g(t,q) = 0; n_lambda by default.
  [[nodiscard]] int n_holonomic() const noexcept { return n_holonomic_; }
  /// Rows n_holonomic .. n_lambda - 1: velocity constraints A(t,q) v + a(t,q) = 0 (see above).
  [[nodiscard]] int n_nonholonomic() const noexcept { return n_lambda_ - n_holonomic_; }

  /// Short identifier, e.g. "andrews". Setup-only.
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;

  /// Consistent initial state at t = 0: g(0,q0) = 0 and G v0 + g_t = 0. Setup-only.
  virtual void initial_state(State& out) const = 0;

  /// Mass matrix M(t,q), n_v x n_v, symmetric positive semi-definite. RT-safe.
  virtual void mass(double t, VecCRef q, MatRef out_M) const noexcept = 0;

  /// Applied and velocity-dependent forces f(t,q,v,u), size n_v, at the input channel values u
  /// (InputValues: the first u.size() channels; the others at their initial_input()). RT-safe.
  virtual void forces(
      double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept = 0;

  /// Position constraints g(t,q), size n_lambda. RT-safe.
  virtual void constraints(double t, VecCRef q, VecRef out_g) const noexcept = 0;

  /// Constraint Jacobian G = dg/dq, n_lambda x n_v. RT-safe.
  virtual void jacobian(double t, VecCRef q, MatRef out_G) const noexcept = 0;

  /// Explicit time derivative g_t(t,q), size n_lambda; zero for scleronomic constraints. RT-safe.
  virtual void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept;

  /// Second-derivative remainder L(t,q,v) = g_tt + 2 g_tq v + g_qq(v,v), size n_lambda,
  /// so that d^2 g/dt^2 = G v' + L along solutions. RT-safe.
  virtual void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept = 0;

  /// Jacobian of the velocity constraint with respect to q:
  /// d(G(t,q) v + g_t(t,q))/dq, n_lambda x n_q (Chin §1.6, the block "L" of H = [G 0; L G]).
  /// Used by the S-full stabilizer. RT-safe.
  virtual void velocity_constraint_jacobian(double t,
                                            VecCRef q,
                                            VecCRef v,
                                            MatRef out_Gv_q) const noexcept = 0;

  // ---- iteration-matrix blocks of the implicit methods (engine/implicit) ----------------------
  // The Newton matrix of an implicit index-3 step (Hoitink 2011 eq. 3.22; reference
  // gsssss-hoitink2011.md §2.4) needs the derivatives of the residual M(q) a - f(t,q,v) + G(q)^T l
  // with respect to q and v. Each method below returns false by default, meaning "not provided":
  // the implicit integrator then takes central finite differences of the corresponding System
  // evaluations into its own preallocated buffers (a documented fallback, slower and accurate to
  // about 1e-8 relative, which only affects the Newton convergence rate, not the converged step).
  // The built-in mechanisms the implicit methods are tested on provide analytic versions.

  /// Force Jacobians out_fq = df/dq (n_v x n_q) and out_fv = df/dv (n_v x n_v) at (t, q, v).
  /// Returns false (and leaves the outputs unspecified) when not provided. RT-safe.
  virtual bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept;

  /// Constraint-force Jacobian out_H = d(G(t,q)^T lambda)/dq (n_v x n_q) for fixed lambda: the
  /// constraint Hessians contracted with lambda (Hoitink's J_B-lambda). Returns false when not
  /// provided. RT-safe.
  virtual bool constraint_force_jacobian(double t,
                                         VecCRef q,
                                         VecCRef lambda,
                                         MatRef out_H) const noexcept;

  /// Inertia-force Jacobian out_K = d(M(t,q) a)/dq (n_v x n_q) for fixed a; zero for a constant
  /// mass matrix. Returns false when not provided. RT-safe.
  virtual bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept;

  // ---- sparse structure (body-coordinate models, issue 4) ------------------------------------
  // In absolute coordinates M is block diagonal and each joint's rows of G touch two bodies, so
  // a model of N bodies has O(N) non-zeros. A System that knows its structure describes it once
  // (sparse_structure) and then writes only the values at each evaluation; the sparse KKT solver
  // (engine/kkt/sparse_kkt.hpp) factors that in O(N). The dense methods above stay valid and are
  // what the dense solver and the implicit methods use.

  /// Writes the structure of the lower triangle of M (diagonal included, n_v x n_v) and of G
  /// (n_lambda x n_v). Returns false when the system has no sparse description (the default);
  /// the engine then uses the dense path. Setup-only (allocates).
  virtual bool sparse_structure(SparsePattern& mass_lower, SparsePattern& jacobian) const;

  /// Values of the lower triangle of M(t,q) in the CSC order of sparse_structure's mass pattern,
  /// out.size() == its nonzeros(). Only called when sparse_structure() returned true. RT-safe.
  virtual void mass_values(double t, VecCRef q, std::span<double> out) const noexcept;

  /// Values of G(t,q) in the CSC order of sparse_structure's Jacobian pattern, out.size() == its
  /// nonzeros(). Only called when sparse_structure() returned true. RT-safe.
  virtual void jacobian_values(double t, VecCRef q, std::span<double> out) const noexcept;

  // Fused evaluations at one (t, q). Why: a sparse RK4 + PStab step evaluates G and L (every RK
  // stage), G and g (PStab pass 1 and pass 2) at the same q, and for a body-coordinate model the
  // shared work, each body's rotation (cos/sin, a quaternion's rotation matrix), is a large part
  // of the step. A System that overrides these computes it once per body per call. The results
  // must be bit-identical to the separate calls
  // (tests/engine/model/system_fused_evaluation_test.cpp), so which path the engine takes never
  // changes a trajectory. Only called when sparse_structure() returned true.

  /// jacobian_values(t, q, out_jacobian) and curvature(t, q, v, out_L) in one call; the defaults
  /// make the two calls. RT-safe.
  virtual void jacobian_values_and_curvature(
      double t, VecCRef q, VecCRef v, std::span<double> out_jacobian, VecRef out_L) const noexcept;

  /// jacobian_values(t, q, out_jacobian) and constraints(t, q, out_g) in one call; the defaults
  /// make the two calls. RT-safe.
  virtual void jacobian_values_and_constraints(double t,
                                               VecCRef q,
                                               std::span<double> out_jacobian,
                                               VecRef out_g) const noexcept;

  // ---- O(n) mass-matrix factorization (joint-space trees, issue 19) ---------------------------
  /// A factorization of M(t,q) that applies M^-1 without forming M (MassFactor above), or nullptr
  /// (the default): the System has none, and the engine factors the dense or sparse M. Called on
  /// the System a Workspace evaluates (its for_simulation() instance). Setup-only (allocates).
  [[nodiscard]] virtual std::unique_ptr<MassFactor> mass_factor() const { return nullptr; }

  // ---- named input channels (issue 4) --------------------------------------------------------
  // A body model binds input channels to its elements (a force on a body point, a torque, a
  // joint motor, the target of a virtual coupling). The channel values u are per-simulation
  // data: the Workspace holds them (input_values(ws), a zero-order hold over the step, like the
  // applied force of Dynamics) and passes them to every evaluation of forces() and energy(), so
  // every integrator sees the channel-driven forces in every stage, Newton iteration and finite
  // difference, and one System can serve several simulations at once (docs/architecture.md,
  // "Named input channels").

  /// Number of named input channels the system reads; 0 (the default): none, the inputs act
  /// through applied_force(ws) as generalized forces, channel i on coordinate i.
  [[nodiscard]] virtual int n_inputs() const noexcept { return 0; }

  /// Value of channel i (0 <= i < n_inputs()) before any input arrives: what a Workspace starts
  /// with, and what an evaluation uses for a channel beyond u.size(). RT-safe.
  [[nodiscard]] virtual double initial_input(int /*i*/) const noexcept { return 0.0; }

  // ---- per-simulation instance (issue 13) ---------------------------------------------------
  /// A Model and its System are shared by every simulation built from them (Workspaces stepping
  /// in several threads), so an evaluation writes nothing but its outputs. A System that cannot
  /// evaluate without scratch of its own (IndependentRowsSystem: the full system's rows before
  /// the selection) returns here an equivalent instance with its own scratch, bit-identical in
  /// every evaluation; each Workspace makes one at construction and evaluates only that one.
  /// nullptr (the default): the Workspace evaluates this System itself. Setup-only (allocates).
  [[nodiscard]] virtual std::unique_ptr<const System> for_simulation() const { return nullptr; }

  /// True when energy() is defined for this system.
  [[nodiscard]] virtual bool has_energy() const noexcept { return false; }

  /// Total mechanical energy T + V [J] (potentials of gravity, springs and constant drive
  /// torques included). Conserved when the system is conservative and the constraints are
  /// scleronomic. Only meaningful when has_energy(). RT-safe.
  [[nodiscard]] virtual double energy(double t, VecCRef q, VecCRef v, InputValues u) const noexcept;

 private:
  int n_q_;
  int n_v_;
  int n_lambda_;
  int n_holonomic_;
};

}  // namespace rtmb
