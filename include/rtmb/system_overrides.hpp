// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Declaration lists of the System overrides (rtmb/system.hpp), one macro per group of methods,
// for use inside the body of a class derived from System.
//
// Why macros: every concrete System (the built-in mechanisms, the planar and spatial body models,
// IndependentRowsSystem) declares the same long signatures again, and a C++ class has to restate
// each override it defines; listing them once here keeps the signatures in one place, next to no
// logic, and the class bodies show only what sets a System apart (its sizes, name, data and the
// groups it implements). Each macro only declares: the class defines every listed method in its
// .cpp. A method with something to document of its own is declared in the class as before.

#include "rtmb/system.hpp"

/// initial_state() and the six evaluations every System must define: M, f, g, G, L and
/// d(G v + g_t)/dq.
#define RTMB_SYSTEM_EVALUATION_OVERRIDES                                                       \
  void initial_state(::rtmb::State& out) const override;                                       \
  void mass(double t, ::rtmb::VecCRef q, ::rtmb::MatRef out_M) const noexcept override;        \
  void forces(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v, ::rtmb::InputValues u,           \
              ::rtmb::VecRef out_f) const noexcept override;                                   \
  void constraints(double t, ::rtmb::VecCRef q, ::rtmb::VecRef out_g) const noexcept override; \
  void jacobian(double t, ::rtmb::VecCRef q, ::rtmb::MatRef out_G) const noexcept override;    \
  void curvature(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v, ::rtmb::VecRef out_L)         \
      const noexcept override;                                                                 \
  void velocity_constraint_jacobian(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v,            \
                                    ::rtmb::MatRef out_Gv_q) const noexcept override

/// The analytic iteration-matrix blocks of the implicit methods (engine/implicit): df/dq and
/// df/dv, d(G^T lambda)/dq and d(M a)/dq.
#define RTMB_SYSTEM_ITERATION_BLOCK_OVERRIDES                                                 \
  bool force_jacobians(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v, ::rtmb::MatRef out_fq, \
                       ::rtmb::MatRef out_fv) const noexcept override;                        \
  bool constraint_force_jacobian(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef lambda,         \
                                 ::rtmb::MatRef out_H) const noexcept override;               \
  bool inertia_jacobian(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef a, ::rtmb::MatRef out_K) \
      const noexcept override

/// The sparse description of M and G and the fused evaluations at one (t, q); the fused ones
/// must be bit-identical to the separate calls (System::jacobian_values_and_curvature).
#define RTMB_SYSTEM_SPARSE_OVERRIDES                                                            \
  bool sparse_structure(::rtmb::SparsePattern& mass_lower, ::rtmb::SparsePattern& jacobian)     \
      const override;                                                                           \
  void mass_values(double t, ::rtmb::VecCRef q, std::span<double> out) const noexcept override; \
  void jacobian_values(double t, ::rtmb::VecCRef q, std::span<double> out)                      \
      const noexcept override;                                                                  \
  void jacobian_values_and_curvature(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v,            \
                                     std::span<double> out_jacobian, ::rtmb::VecRef out_L)      \
      const noexcept override;                                                                  \
  void jacobian_values_and_constraints(double t, ::rtmb::VecCRef q,                             \
                                       std::span<double> out_jacobian, ::rtmb::VecRef out_g)    \
      const noexcept override

/// has_energy() true and energy(): a System whose total energy T + V is defined (the class
/// comment says what it includes).
#define RTMB_SYSTEM_ENERGY_OVERRIDES                                          \
  [[nodiscard]] bool has_energy() const noexcept override {                   \
    return true;                                                              \
  }                                                                           \
  [[nodiscard]] double energy(double t, ::rtmb::VecCRef q, ::rtmb::VecCRef v, \
                              ::rtmb::InputValues u) const noexcept override

/// n_inputs(), initial_input() and input() of a body model whose named input channels are the
/// entries of `inputs` (a vector of specs with an `initial` value), in channel order; input(u, i)
/// is the value of channel i in u, or its initial value when u is shorter (System::forces).
#define RTMB_SYSTEM_INPUT_CHANNELS(inputs)                                          \
  [[nodiscard]] int n_inputs() const noexcept override {                            \
    return static_cast<int>((inputs).size());                                       \
  }                                                                                 \
  [[nodiscard]] double initial_input(int i) const noexcept override {               \
    return (inputs)[static_cast<std::size_t>(i)].initial;                           \
  }                                                                                 \
  [[nodiscard]] double input(::rtmb::InputValues u, std::size_t i) const noexcept { \
    return i < u.size() ? u[i] : (inputs)[i].initial;                               \
  }
