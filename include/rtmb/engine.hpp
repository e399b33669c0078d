// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The engine's core API in one include: a System (rtmb/system.hpp) and its integration Settings
// form a Model (rtmb/model.hpp); a Workspace holds what one simulation writes, and step() advances
// a State (rtmb/step.hpp); AdaptiveDopri5 is the offline adaptive driver
// (rtmb/adaptive_dopri5.hpp). Models (built-in mechanisms, body models, model files) are under
// rtmb/models/, the real-time runtime under rtmb/runtime/, the network under rtmb/net/.
// Files under engine/ are internal and change without notice.

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/model.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"
