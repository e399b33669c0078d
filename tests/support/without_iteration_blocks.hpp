// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Test-only: wraps a System and hides its analytic iteration-matrix blocks (force_jacobians,
// constraint_force_jacobian, inertia_jacobian keep the "not provided" defaults), so the implicit
// methods take their finite-difference fallback (engine/implicit/iteration_blocks.cpp). It hides
// discrete_gradient_forces too, so a midpoint-family method evaluates the inner system's forces at
// the midpoint (the contrast in tests/scenarios/hoitink_four_mass_test.cpp).

#include <memory>
#include <string_view>
#include <utility>

#include "rtmb/system.hpp"

namespace rtmb::testing {

class WithoutIterationBlocks final : public System {
 public:
  explicit WithoutIterationBlocks(std::unique_ptr<System> inner)
      : System(inner->n_q(), inner->n_v(), inner->n_lambda()), inner_(std::move(inner)) {}

  [[nodiscard]] std::string_view name() const noexcept override { return inner_->name(); }
  void initial_state(State& out) const override { inner_->initial_state(out); }
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override {
    inner_->mass(t, q, out_M);
  }
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override {
    inner_->forces(t, q, v, u, out_f);
  }
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override {
    inner_->constraints(t, q, out_g);
  }
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override {
    inner_->jacobian(t, q, out_G);
  }
  void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept override {
    inner_->constraint_rate(t, q, out_gt);
  }
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override {
    inner_->curvature(t, q, v, out_L);
  }
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override {
    inner_->velocity_constraint_jacobian(t, q, v, out_Gv_q);
  }
  [[nodiscard]] bool has_energy() const noexcept override { return inner_->has_energy(); }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override {
    return inner_->energy(t, q, v, u);
  }

 private:
  std::unique_ptr<System> inner_;
};

}  // namespace rtmb::testing
