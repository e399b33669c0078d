// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/Core>

namespace rtmb {

/// Dynamic-size vector and matrix used for sizes fixed at model setup.
/// They are allocated once (Workspace/State construction) and never resized on the step path.
using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

/// Views passed across the System interface. Callers pass plain vectors, segments of plain
/// vectors, or column-major blocks; an expression that needs a temporary would allocate, so the
/// engine never passes one (the allocation tests prove it).
using VecCRef = Eigen::Ref<const Vec>;
using VecRef = Eigen::Ref<Vec>;
using MatRef = Eigen::Ref<Mat>;
using MatCRef = Eigen::Ref<const Mat>;

}  // namespace rtmb
