// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Assembly of initial conditions (engine/multibody/assembly.hpp).
#include "engine/multibody/assembly.hpp"

#include <Eigen/Dense>
#include <utility>

#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::detail {

std::vector<std::string> assemble_state(const System& sys,
                                        const std::vector<JointRows>& joints,
                                        State& s,
                                        double tolerance,
                                        int max_iterations) {
  std::vector<std::string> notes;
  if (sys.n_lambda() == 0) return notes;
  Vec g(sys.n_lambda());
  Mat G(sys.n_lambda(), sys.n_v());
  sys.constraints(0.0, s.q, g);
  const double g0 = g.lpNorm<Eigen::Infinity>();
  int iterations = 0;
  while (g.lpNorm<Eigen::Infinity>() > tolerance && iterations < max_iterations) {
    sys.jacobian(0.0, s.q, G);
    s.q -= G.completeOrthogonalDecomposition().solve(g);
    sys.constraints(0.0, s.q, g);
    ++iterations;
  }
  if (!(g.lpNorm<Eigen::Infinity>() <= tolerance)) {
    std::vector<std::string> bad;
    std::string list;
    for (const JointRows& j : joints) {
      if (!(g.segment(j.row, j.rows).lpNorm<Eigen::Infinity>() <= tolerance)) {
        bad.push_back(j.name);
        list += (list.empty() ? "" : ", ") + j.name;
      }
    }
    throw AssemblyError(
        "assembly failed: after " + std::to_string(iterations) +
            " Newton iterations the constraints of joint(s) " + list +
            " remain violated (|g|_inf = " + std::to_string(g.lpNorm<Eigen::Infinity>()) + ")",
        std::move(bad));
  }
  if (iterations > 0) {
    notes.push_back("initial pose assembled: |g|_inf " + std::to_string(g0) + " -> " +
                    std::to_string(g.lpNorm<Eigen::Infinity>()) + " in " +
                    std::to_string(iterations) + " Newton iteration(s)");
  }
  // velocities: the minimum-norm change that satisfies G v + g_t = 0 (g_t = -f'(0) of drivers)
  sys.jacobian(0.0, s.q, G);
  Vec gt(sys.n_lambda());
  sys.constraint_rate(0.0, s.q, gt);
  const Vec gv = G * s.v + gt;
  if (gv.lpNorm<Eigen::Infinity>() > tolerance) {
    s.v -= G.completeOrthogonalDecomposition().solve(gv);
    notes.push_back("initial velocity projected onto G v + g_t = 0: |G v + g_t|_inf " +
                    std::to_string(gv.lpNorm<Eigen::Infinity>()) + " -> " +
                    std::to_string((G * s.v + gt).lpNorm<Eigen::Infinity>()));
  }
  return notes;
}

}  // namespace rtmb::detail
