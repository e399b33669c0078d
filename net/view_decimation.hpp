// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// How many of the view's frames one page gets (issue 20 point 6: "decimation chosen by the
// server from the page's frame rate"). The page reports the rate at which it draws
// (docs/protocol.md "Live view", the `frame_rate` message); the server then sends that session
// every k-th frame of its timer, so that a page that cannot draw them all is not made to parse
// frames it will never show (a 1000-body chain's frame is ~60 kB of JSON).

namespace rtmb {

/// Most frames of the timer one page may skip between two it gets.
inline constexpr int kMaxViewDecimation = 30;

/// The decimation k for a page that draws page_fps frames per second while the view sends
/// timer_hz: the smallest k with timer_hz / k <= page_fps / 0.9, i.e. k = ceil(0.9 timer_hz /
/// page_fps), clamped to [1, kMaxViewDecimation]. The 0.9: a page that draws at least 90 % of
/// the frames it gets keeps them all (its measured rate jitters around the frame rate). A
/// report that is not a finite positive rate, or a timer_hz that is not, returns `current`.
[[nodiscard]] int view_decimation(double timer_hz, double page_fps, int current) noexcept;

}  // namespace rtmb
