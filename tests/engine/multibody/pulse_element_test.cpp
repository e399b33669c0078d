// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Triangular pulse (engine/multibody/pulse_element.hpp): zero outside [start, start + duration],
// linear on each half with the peak at the middle (values from the closed form
// F = peak (1 - |2 (t - start)/T - 1|)), continuous at both ends, and its impulse, integrated by
// the trapezoidal rule (exact for a piecewise-linear function whose kinks are grid points), equals
// the triangle's area peak T / 2.
#include "engine/multibody/pulse_element.hpp"

#include <gtest/gtest.h>

namespace rtmb {
namespace {

const PulseElement kPulse{Eigen::Vector3d(3.0, -4.0, 0.5), 0.25, 0.5};

TEST(PulseElement, IsATriangleWithItsPeakAtMidDuration) {
  const Eigen::Vector3d p = kPulse.peak;
  EXPECT_EQ(kPulse.force(0.0), Eigen::Vector3d::Zero());
  EXPECT_EQ(kPulse.force(0.25), Eigen::Vector3d::Zero());  // continuous at the start
  EXPECT_EQ(kPulse.force(0.75), Eigen::Vector3d::Zero());  // and at the end
  EXPECT_EQ(kPulse.force(2.0), Eigen::Vector3d::Zero());
  EXPECT_TRUE(kPulse.force(0.5).isApprox(p, 1e-15));
  EXPECT_TRUE(kPulse.force(0.375).isApprox(0.5 * p, 1e-15));  // quarter: half the peak
  EXPECT_TRUE(kPulse.force(0.625).isApprox(0.5 * p, 1e-15));  // symmetric
  EXPECT_TRUE(kPulse.force(0.3).isApprox(0.2 * p, 1e-14));    // (0.3 - 0.25)/0.25 of the rise
  // the direction never changes
  EXPECT_NEAR(kPulse.force(0.6).normalized().dot(p.normalized()), 1.0, 1e-15);
}

TEST(PulseElement, ImpulseIsPeakTimesDurationOverTwo) {
  const int n = 1000;  // the kinks at 0.25, 0.5, 0.75 are grid points of h = 1e-3
  const double h = 1.0 / n;
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (int i = 0; i < n; ++i) {
    sum += 0.5 * h * (kPulse.force(i * h) + kPulse.force((i + 1) * h));
  }
  EXPECT_TRUE(sum.isApprox(0.5 * kPulse.duration * kPulse.peak, 1e-12)) << sum.transpose();
}

}  // namespace
}  // namespace rtmb
