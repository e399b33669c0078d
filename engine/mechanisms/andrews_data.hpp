// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The Hairer-Wanner data of Andrews' squeezing mechanism (Solving ODEs II §VII.7), as written out
// in Chin 1995 §3.7 (reference/post-stabilization-chin1995.md): the one copy that the built-in
// model (andrews.cpp) and the tests that rebuild parts of it independently (its spring potential,
// the body-coordinate poses of configs/andrews.yaml) all read.

namespace rtmb::detail::andrews_data {

// masses [kg] and inertias [kg m^2]
inline constexpr double kM1 = 0.04325;
inline constexpr double kM2 = 0.00365;
inline constexpr double kM3 = 0.02373;
inline constexpr double kM4 = 0.00706;
inline constexpr double kM5 = 0.07050;
inline constexpr double kM6 = 0.00706;
inline constexpr double kM7 = 0.05498;
inline constexpr double kI1 = 2.194e-6;
inline constexpr double kI2 = 4.410e-7;
inline constexpr double kI3 = 5.255e-6;
inline constexpr double kI4 = 5.667e-7;
inline constexpr double kI5 = 1.169e-5;
inline constexpr double kI6 = 5.667e-7;
inline constexpr double kI7 = 1.912e-5;

// fixed points [m]
inline constexpr double kXa = -0.06934;
inline constexpr double kYa = -0.00227;
inline constexpr double kXb = -0.03635;
inline constexpr double kYb = 0.03273;
inline constexpr double kXc = 0.014;
inline constexpr double kYc = 0.072;

// lengths [m]; tb = 0.00916 is the Hairer-Wanner value (Hoitink prints 0.009416, an OCR/typo)
inline constexpr double kD = 0.028;
inline constexpr double kDa = 0.0115;
inline constexpr double kE = 0.02;
inline constexpr double kEa = 0.01421;
inline constexpr double kRr = 0.007;
inline constexpr double kRa = 0.00092;
inline constexpr double kSs = 0.035;
inline constexpr double kSa = 0.01874;
inline constexpr double kSb = 0.01043;
inline constexpr double kSc = 0.018;
inline constexpr double kSd = 0.02;
inline constexpr double kTa = 0.02308;
inline constexpr double kTb = 0.00916;
inline constexpr double kU = 0.04;
inline constexpr double kUa = 0.01228;
inline constexpr double kUb = 0.00449;
inline constexpr double kZf = 0.02;
inline constexpr double kZt = 0.04;
inline constexpr double kFa = 0.01421;

// drive torque [N m] and spring: stiffness [N/m], unstretched length [m]
inline constexpr double kMom = 0.033;
inline constexpr double kC0 = 4530.0;
inline constexpr double kL0 = 0.07785;

}  // namespace rtmb::detail::andrews_data
