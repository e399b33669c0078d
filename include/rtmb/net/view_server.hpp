// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The live browser view of `rtmb serve --view` (issue 7; docs/protocol.md "Live view").
//
// A small HTTP + WebSocket server (Boost.Beast) on its own thread and io_context. It serves the
// page (web/index.html, web/view.js and three.js, copied into the build tree at build time, so
// nothing is fetched from the internet at run time) and, on the WebSocket `/ws`, one `scene`
// message describing the mechanism's geometry followed by `frame` messages at a fixed rate
// (default 60 Hz, `rtmb serve --view-rate`) with the newest state, drift, step time and latency.
// Each message the page sends is one control-command line (docs/protocol.md "Control channel"),
// relayed over a TCP connection of the session's own to the server's control port, so the page's
// pause, step, reset and start meet the same parser, hello and token check and rate limit as any
// TCP client; each reply line comes back as one message.
//
// The positions come from Server::read_view_state() (every coordinate, in buffers the simulation
// thread fills without allocating; net/view_state_buffer.hpp), the rest from Server::stats(). A
// page reports the rate at which it draws, and gets fewer frames when it cannot draw them all
// (net/view_decimation.hpp).
//
// Why a separate thread reading Server::stats(), not a hook in the server: the view must never
// cost the simulation thread anything (issue 7 point 5: zero allocations on the simulation thread
// with the view on). stats() is a copy made by the network thread under a mutex that the
// simulation thread never takes; a browser that stalls only delays its own frames (a session
// keeps at most one frame queued and drops the rest).

#include <cstdint>
#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"

namespace rtmb {

class Server;

/// Settings of a ViewServer.
struct ViewConfig {
  std::string bind_address = "127.0.0.1";  ///< IPv4 address to listen on
  std::uint16_t port = 0;                  ///< HTTP port; 0: chosen by the OS
  std::string web_dir;                     ///< directory with index.html, view.js, three.*.js
  /// WebSocket frames per second, (0, 1000]. 60 by default: the page draws only frames with new
  /// content, so its frame rate can be no more than this (issue 20 acceptance 4 asks 30 frames
  /// per second; a 30 Hz stream could give at most that, minus any frame lost to jitter).
  double frame_rate_hz = 60.0;
  std::size_t max_clients = 8;  ///< browser connections at once
  /// Non-empty: the page and the WebSocket require it (`?token=` or `Authorization: Bearer`);
  /// `rtmb serve --token` passes its token (net/view_request.hpp).
  std::string token;
  /// Where the page's control commands go (issue 20 point 3): the server's control port
  /// (Server::tcp_port()) at this IPv4 address; empty: bind_address, or 127.0.0.1 when that is
  /// 0.0.0.0. Without TLS only: with TLS on the control channel the page's commands are refused.
  std::string control_address;
};

/// The geometry message for a model (JSON, docs/protocol.md "Live view"): for body models the
/// bodies and the body-frame points where joints and force elements attach, so the page can
/// draw each body as a star of links from its centre of mass; for built-in mechanisms (which
/// have no bodies) the number of joint points, the bars between them and the ground points
/// (rtmb/models/joint_points.hpp), whose positions come with every frame. Setup-only.
[[nodiscard]] std::string view_scene_json(const ModelFile& file);

/// What the view evaluates the joint points of, per frame: for a built-in mechanism or a particle
/// model an instance of its own (make_system(file)), else nullptr. Setup-only.
[[nodiscard]] std::unique_ptr<const System> view_geometry(const ModelFile& file);

/// The page's URL, http://HOST:PORT/, with `?token=` (percent-encoded) when `token` is not empty.
[[nodiscard]] std::string view_url(const std::string& host,
                                   std::uint16_t port,
                                   const std::string& token);

/// Counters of a running view, any thread.
struct ViewStats {
  std::uint64_t http_requests = 0;   ///< HTTP requests answered (files, 404s, 401/403s)
  std::uint64_t ws_sessions = 0;     ///< WebSocket sessions opened
  std::uint64_t frames_sent = 0;     ///< frame messages written (all sessions)
  std::uint64_t frames_dropped = 0;  ///< frames skipped because a session was still writing
  std::size_t clients = 0;           ///< open connections now
  /// The pages' frame-rate reports (issue 20 point 6): how many came, the newest rate [frames/s]
  /// and the decimation it gave its session (one frame in `decimation` ticks is sent, on average;
  /// a real number, net/view_decimation.hpp).
  std::uint64_t frame_rate_reports = 0;
  double page_fps = 0.0;
  double decimation = 1.0;
};

/// The view server. Construction binds the port and checks web_dir (throws std::runtime_error
/// naming the missing file or the bind error); start() launches its thread; stop() or the
/// destructor ends it. `server` must outlive the view. `geometry` (view_geometry): the built-in
/// mechanism whose joint points each frame carries, evaluated from the frame's q on the view's
/// thread (JointPoints allocates nothing); nullptr for body models.
class ViewServer {
 public:
  ViewServer(const ViewConfig& config,
             const Server& server,
             std::string scene_json,
             std::unique_ptr<const System> geometry = nullptr);
  ~ViewServer();
  ViewServer(const ViewServer&) = delete;
  ViewServer& operator=(const ViewServer&) = delete;

  void start();
  void stop() noexcept;
  [[nodiscard]] std::uint16_t port() const noexcept;
  [[nodiscard]] ViewStats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtmb
