// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/adaptive_dopri5.hpp"

#include <algorithm>
#include <cmath>

#include "engine/integrate/explicit_rk.hpp"

namespace rtmb {

namespace {
// Hairer's DOPRI5 defaults (Chin §2.3): safety factor and step-ratio limits, beta = 0 (no PI).
constexpr double kSafety = 0.9;
constexpr double kFacMin = 0.2;   // h_new >= h/5
constexpr double kFacMax = 10.0;  // h_new <= 10 h
constexpr double kOrderExponent = 0.2;
constexpr int kFirstStages = 6;  // k1..k6; k7 is the FSAL stage
}  // namespace

struct AdaptiveDopri5::Impl {
  Impl(const Model& m, Workspace* w, const AdaptiveOptions& o)
      : model(m),
        options(o),
        own_ws(w == nullptr ? std::make_unique<Workspace>(m) : nullptr),
        ws(w == nullptr ? *own_ws : *w),
        nq(m.system().n_q()),
        nv(m.system().n_v()),
        y(Vec::Zero(nq + nv)),
        y1(Vec::Zero(nq + nv)),
        ys(Vec::Zero(nq + nv)),
        err(Vec::Zero(nq + nv)),
        k(Mat::Zero(nq + nv, 7)),
        a(Vec::Zero(nv)) {
    // the Baumgarte gains are the Workspace's: set under any stabilizer, as in step() (before
    // issue 13 this driver built its own Dynamics and set them for `baumgarte` only)
    atol = o.atol > 0.0 ? o.atol : o.rtol / 10.0;
    stabilizes = m.settings().stabilizer != StabilizerKind::kNone &&
                 m.settings().stabilizer != StabilizerKind::kBaumgarte &&
                 m.settings().stabilizer != StabilizerKind::kSvf;
  }

  // f(t, y) into column j of k: (v, v')
  void rhs(double t, const Vec& state, int j, StepStatus& status) noexcept {
    acceleration(ws, t, state.head(nq), state.tail(nv), a, status);
    k.col(j).head(nq) = state.tail(nv);
    k.col(j).tail(nv) = a;
    ++counters.nfcn;
  }

  // Hairer's HINIT: h such that h^5 max(||f0||, ||f'||) = 0.01 (one extra f evaluation)
  double initial_step(double t, double h_max, StepStatus& status) noexcept {
    double dnf = 0.0;
    double dny = 0.0;
    for (int i = 0; i < nq + nv; ++i) {
      const double sk = atol + options.rtol * std::abs(y[i]);
      dnf += (k(i, 0) / sk) * (k(i, 0) / sk);
      dny += (y[i] / sk) * (y[i] / sk);
    }
    double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
    h = std::min(h, h_max);
    y1 = y + h * k.col(0);
    rhs(t + h, y1, 1, status);
    double der2 = 0.0;
    for (int i = 0; i < nq + nv; ++i) {
      const double sk = atol + options.rtol * std::abs(y[i]);
      der2 += ((k(i, 1) - k(i, 0)) / sk) * ((k(i, 1) - k(i, 0)) / sk);
    }
    der2 = std::sqrt(der2) / h;
    const double der12 = std::max(std::abs(der2), std::sqrt(dnf));
    const double h1 = der12 <= 1e-15 ? std::max(1e-6, h * 1e-3) : std::pow(0.01 / der12, 1.0 / 5.0);
    return std::min({100.0 * h, h1, h_max});
  }

  const Model& model;
  AdaptiveOptions options;
  double atol;
  std::unique_ptr<Workspace> own_ws;  ///< when constructed without a Workspace
  Workspace& ws;                      ///< right-hand side, stabilizer and monitor of the step
  int nq;
  int nv;
  Vec y;    ///< (q, v) at t_n
  Vec y1;   ///< stage point, then the unstabilized fifth-order solution
  Vec ys;   ///< stabilized fifth-order solution
  Vec err;  ///< local error estimate
  Mat k;    ///< stage derivatives k1..k7, (n_q + n_v) x 7
  Vec a;    ///< acceleration scratch
  AdaptiveCounters counters;
  bool started = false;
  bool reject = false;
  double h_next = 0.0;      ///< step size proposed for the next attempt
  bool stabilizes = false;  ///< a post-step stabilizer is configured (not none/Baumgarte/svf)
};

AdaptiveDopri5::AdaptiveDopri5(const Model& model, Workspace& ws, const AdaptiveOptions& options)
    : impl_(std::make_unique<Impl>(model, &ws, options)) {}
AdaptiveDopri5::AdaptiveDopri5(const Model& model, const AdaptiveOptions& options)
    : impl_(std::make_unique<Impl>(model, nullptr, options)) {}
AdaptiveDopri5::~AdaptiveDopri5() = default;

const AdaptiveCounters& AdaptiveDopri5::counters() const noexcept {
  return impl_->counters;
}
double AdaptiveDopri5::next_step_size() const noexcept {
  return impl_->h_next;
}

bool AdaptiveDopri5::step(State& s, double t_end, StepStatus& status) noexcept {
  Impl& w = *impl_;
  const ButcherTableau& tab = dopri5_tableau();
  const auto& b_hat = dopri5_embedded_weights();
  const double span = t_end - s.t;
  if (span <= 0.0) return false;
  const double h_max = w.options.h_max > 0.0 ? w.options.h_max : span;

  w.y.head(w.nq) = s.q;
  w.y.tail(w.nv) = s.v;

  // first call: f(y0) and HINIT, the "+2" of NFCN = 6 NSTEP + 2
  if (!w.started) {
    w.rhs(s.t, w.y, 0, status);
    w.h_next = w.options.h_initial > 0.0 ? w.options.h_initial : w.initial_step(s.t, h_max, status);
    w.started = true;
  }
  // otherwise k1 is the FSAL stage k7 of the previous accepted step: the caller must not change
  // s between calls (construct a new integrator to restart from an edited state)

  for (;;) {
    if (w.counters.nstep >= w.options.max_steps ||
        !(w.h_next > 1e-14 * std::max(1.0, std::abs(s.t)))) {
      status.set(StepFlag::kNonFinite);
      return false;
    }
    bool last = false;
    double h = std::min(w.h_next, h_max);
    if (s.t + 1.01 * h >= t_end) {
      h = t_end - s.t;
      last = true;
    }
    ++w.counters.nstep;

    // stages k2..k6 and the unstabilized fifth-order solution y~ = y + h sum b_j k_j
    for (int i = 1; i < kFirstStages; ++i) {
      w.y1 = w.y;
      for (int j = 0; j < i; ++j) {
        w.y1.noalias() +=
            (h * tab.a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) * w.k.col(j);
      }
      w.rhs(s.t + tab.c[static_cast<std::size_t>(i)] * h, w.y1, i, status);
    }
    w.ys = w.y;
    for (int j = 0; j < kFirstStages; ++j) {
      w.ys.noalias() += (h * tab.b[static_cast<std::size_t>(j)]) * w.k.col(j);
    }
    w.y1 = w.ys;  // keep y~ for the error estimate

    // stabilize (Chin eq. 4.10) and evaluate k7 at the stabilized point (eq. 4.11)
    if (w.stabilizes) {
      const int passes_before = status.stabilizer_iterations;
      stabilize(w.ws, s.t + h, w.ys.head(w.nq), w.ys.tail(w.nv), status);
      if (status.stabilizer_iterations > passes_before) ++w.counters.nstab;  // DATOL may skip
    }
    w.rhs(s.t + h, w.ys, 6, status);

    // error estimate (Chin eq. 4.8 with the modified embedded solution 4.13):
    //   y~ - (y + h sum_{j<=6} b^_j k_j + h b^_7 k7) = h sum_j E_j k_j,  E = b - b^, b_7 = 0,
    // with k7 at the stabilized point. Optionally the stabilization correction y_stab - y~ is
    // added (the reading of reference §2.2); see AdaptiveOptions::error_includes_stabilization.
    if (w.options.error_includes_stabilization) {
      w.err = w.ys - w.y1;
    } else {
      w.err.setZero();
    }
    for (int j = 0; j < 7; ++j) {
      const double e = tab.b[static_cast<std::size_t>(j)] - b_hat[static_cast<std::size_t>(j)];
      w.err.noalias() += (h * e) * w.k.col(j);
    }
    double err = 0.0;
    for (int i = 0; i < w.nq + w.nv; ++i) {
      const double sk = w.atol + w.options.rtol * std::max(std::abs(w.y[i]), std::abs(w.ys[i]));
      err += (w.err[i] / sk) * (w.err[i] / sk);
    }
    err = std::sqrt(err / static_cast<double>(w.nq + w.nv));
    if (!std::isfinite(err)) err = 1e10;  // a blown-up trial step is rejected and shrunk

    const double fac11 = std::pow(err, kOrderExponent);
    const double fac = std::clamp(fac11 / kSafety, 1.0 / kFacMax, 1.0 / kFacMin);
    double h_new = h / fac;

    if (err <= 1.0) {
      // accepted: FSAL, advance
      ++w.counters.naccpt;
      w.k.col(0) = w.k.col(6);
      w.y = w.ys;
      s.t = last ? t_end : s.t + h;
      s.q = w.y.head(w.nq);
      s.v = w.y.tail(w.nv);
      h_new = std::min(h_new, h_max);
      if (w.reject) h_new = std::min(h_new, h);
      w.reject = false;
      w.h_next = h_new;
      if (w.model.settings().monitor) measure(w.model, s, w.ws, status);
      return true;
    }
    // rejected: shrink, no increase on the next step
    w.h_next = h / std::min(1.0 / kFacMin, fac11 / kSafety);
    w.reject = true;
    if (w.counters.naccpt >= 1) ++w.counters.nrejct;
  }
}

}  // namespace rtmb
