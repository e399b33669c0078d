// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/Cholesky>

#include "engine/stabilize/stabilizer.hpp"

namespace rtmb {

/// S-full post-stabilization, Chin 1995 Algorithm 3.2 / eq. (3.65)
/// (seed 000_43485023299f7749.txt, eqs. 3.63-3.69): with the invariant
/// h(q,v) = (g; G v + g_t) and its Jacobian H = [G 0; (Gv + g_t)_q G] at (q~, v~),
///
///     (H H^T) w = h(q~, v~),     (q, v) = (q~, v~) - H^T w.
///
/// HF = I, so the drift is O(h^(2(p+1))) in one pass, at the price of the second-derivative block
/// (System::velocity_constraint_jacobian) and a 2 n_lambda square solve. Euclidean metric.
class SFullStabilizer final : public Stabilizer {
 public:
  explicit SFullStabilizer(const System& system);

  [[nodiscard]] std::string_view name() const noexcept override { return "sfull"; }
  void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept override;

 private:
  const System& system_;
  Mat h_jac_;            ///< H, 2 n_lambda x (n_q + n_v)
  Mat g_;                ///< G, n_lambda x n_v
  Mat gv_q_;             ///< (G v + g_t)_q, n_lambda x n_q
  Mat hht_;              ///< H H^T, 2 n_lambda square
  Eigen::LLT<Mat> llt_;  ///< Cholesky factor of H H^T
  Vec h_;                ///< invariant residual, 2 n_lambda
  Vec w_;                ///< multiplier, 2 n_lambda
  Vec dz_;               ///< correction (dq; dv), n_q + n_v
  Vec gt_;               ///< g_t, n_lambda
};

}  // namespace rtmb
