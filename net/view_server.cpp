// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live browser view (include/rtmb/net/view_server.hpp; docs/protocol.md "Live view"):
// Boost.Beast HTTP for the page, a WebSocket for the scene and the frames. One thread, one
// io_context, no strands: every handler runs on that thread.
#include "rtmb/net/view_server.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "net/flat_json.hpp"
#include "net/json_writer.hpp"
#include "net/view_decimation.hpp"
#include "net/view_request.hpp"
#include "rtmb/models/joint_points.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"

namespace rtmb {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

// a device's round-trip report older than this is not charted (its client has stopped)
constexpr std::int64_t kRttReportStaleNs = 3'000'000'000;

double us(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-3;
}

// The files the page needs: served from memory (read once at construction).
constexpr std::array<std::pair<const char*, const char*>, 7> kFiles = {{
    {"index.html", "text/html; charset=utf-8"},
    {"view.js", "text/javascript; charset=utf-8"},
    {"charts.js", "text/javascript; charset=utf-8"},
    {"instanced_bodies.js", "text/javascript; charset=utf-8"},
    {"three.module.js", "text/javascript; charset=utf-8"},
    {"three.core.js", "text/javascript; charset=utf-8"},
    {"OrbitControls.js", "text/javascript; charset=utf-8"},
}};

}  // namespace

// A file of the page held in memory. Outside the anonymous namespace because ViewServer::Impl
// holds them, and a class with external linkage may not have a member of an internal type.
struct StaticFile {
  std::string content;
  std::string type;
};

std::string view_url(const std::string& host, std::uint16_t port, const std::string& token) {
  std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  if (!token.empty()) url += "?token=" + url_encode_token(token);
  return url;
}

class WsSession;

struct ViewServer::Impl {
  Impl(const ViewConfig& cfg,
       const Server& srv,
       std::string scene_json,
       std::unique_ptr<const System> geometry_system)
      : config(cfg),
        server(srv),
        scene(std::move(scene_json)),
        geometry(std::move(geometry_system)),
        joints(geometry ? joint_points_of(*geometry) : nullptr),
        points(joints ? static_cast<std::size_t>(joints->n_joint_points()) : 0U),
        acceptor(io),
        timer(io) {}

  void accept();
  void on_frame_timer();
  [[nodiscard]] std::string frame_json(const ServerStats& s) const;
  // the frame's positions, time and step: every coordinate (Server::read_view_state) once the
  // simulation thread handed one over, else the snapshot's
  // a `load` swapped the model: the new scene for every page (geometry rebuilt)
  void rebuild(const ModelFile& file);

  // Declaration order matters for destruction: the io_context destroys the handlers it still
  // holds, and with them sessions whose destructors touch `open` and the counters, so those are
  // declared (and live) before it; the acceptor and timer use the io_context and go first.
  ViewConfig config;
  const Server& server;
  std::string scene;
  // a built-in mechanism's own instance (never the simulation's), its joint points and their
  // scratch: frame_json evaluates them from each frame's q on the network thread
  std::unique_ptr<const System> geometry;
  const JointPoints* joints;
  mutable std::vector<Eigen::Vector3d> points;
  ViewState full;                           // the newest full positions (network thread)
  std::map<std::string, StaticFile> files;  // "/index.html" -> content
  std::atomic<std::size_t> open{0};         // connections now, any thread
  mutable std::mutex stats_mutex;
  ViewStats counters;                              // guarded by stats_mutex
  std::vector<std::weak_ptr<WsSession>> sessions;  // network thread only
  std::chrono::steady_clock::duration frame_period{};
  tcp::endpoint control;       // the server's control port, where the page's commands go
  std::string controls_error;  // non-empty: why the page's commands are refused
  std::uint16_t bound_port = 0;
  std::uint64_t loads_seen = 0;  // ServerStats::loads the scene is for
  asio::io_context io;
  tcp::acceptor acceptor;
  asio::steady_timer timer;
  std::thread thread;
};

namespace {

template <class F>
void count(ViewServer::Impl& impl, F&& f) {
  const std::lock_guard lock(impl.stats_mutex);
  f(impl.counters);
}

}  // namespace

/// One browser's WebSocket: the scene first, then frames; at most two messages queued (the one
/// being written and the next), so a slow browser gets fresh frames, not a growing backlog.
class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket socket, ViewServer::Impl& impl) : ws_(std::move(socket)), impl_(impl) {
    ++impl_.open;
  }
  ~WsSession() { --impl_.open; }
  WsSession(const WsSession&) = delete;
  WsSession& operator=(const WsSession&) = delete;

  void run(http::request<http::string_body> request) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    limit_view_websocket(ws_);
    ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      self->impl_.sessions.push_back(self);
      count(self->impl_, [](ViewStats& s) { ++s.ws_sessions; });
      self->send(self->impl_.scene, true);
      self->read();
    });
  }

  /// One tick of the frame timer: whether this page gets the tick's frame, one tick in
  /// decimation_ on average (the page's frame rate, net/view_decimation.hpp).
  bool takes_frame() noexcept { return pacer_.tick(decimation_); }

  /// Queues a message; a frame is dropped while two are queued (the scene never is).
  void send(const std::string& message, bool must_send) {
    if (!must_send && queue_.size() >= 2) {
      count(impl_, [](ViewStats& s) { ++s.frames_dropped; });
      return;
    }
    if (!must_send) ++frames_since_report_;
    queue_.push_back(message);
    if (queue_.size() == 1) write();
  }

 private:
  void write() {
    ws_.text(true);
    ws_.async_write(asio::buffer(queue_.front()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t /*bytes*/) {
                      if (ec) return;
                      self->queue_.pop_front();
                      if (!self->queue_.empty()) self->write();
                    });
  }

  // Every message of the page is one control-command line for the relay; reading also keeps the
  // close handshake and pings working. A closed WebSocket closes the relay, which ends its reads.
  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) {
        beast::error_code ignored;
        self->relay_.close(ignored);
        return;
      }
      std::string line = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.consume(self->buffer_.size());
      if (!self->view_message(line)) self->relay(std::move(line));
      self->read();
    });
  }

  // A message for the view itself, not a control command: {"view":"frame_rate","fps":F}, the
  // rate at which the page draws (docs/protocol.md "Live view"). The session's decimation follows
  // it, and the page is told the decimation it gets. Returns false for anything else (relayed).
  bool view_message(const std::string& line) {
    if (line.find(R"("view")") == std::string::npos) return false;
    FlatJsonObject o;
    std::string error;
    if (!parse_flat_json(line, o, error)) return false;  // the relay answers with the error
    const JsonValue* kind = o.find("view");
    const JsonValue* fps = o.find("fps");
    if (kind == nullptr || kind->type != JsonType::kString || kind->text != "frame_rate" ||
        fps == nullptr || fps->type != JsonType::kNumber) {
      return false;
    }
    // the rate this page was really sent since its last report: the timer's nominal rate / d
    // overstates it when the view's thread is late (a loaded machine), and a page that drew all
    // it got would look slow. Over half a second at least (the page reports once a second): a
    // shorter window counts too few frames to tell; 0 means the nominal rate.
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - last_report_).count();
    const double sent_hz =
        elapsed >= 0.5 ? static_cast<double>(frames_since_report_) / elapsed : 0.0;
    last_report_ = now;
    frames_since_report_ = 0;
    // the page's animation frames per second over the same second (optional: older pages)
    const JsonValue* raf = o.find("raf");
    const double animation_hz =
        raf != nullptr && raf->type == JsonType::kNumber ? raf->number : 0.0;
    decimation_ = view_decimation(impl_.config.frame_rate_hz, fps->number, decimation_, sent_hz,
                                  animation_hz);
    count(impl_, [this, f = fps->number](ViewStats& s) {
      ++s.frame_rate_reports;
      s.page_fps = f;
      s.decimation = decimation_;
    });
    std::string reply = R"({"type":"view","decimation":)";
    append_json_number(reply, decimation_);
    reply += R"(,"frame_rate_hz":)";
    append_json_number(reply, impl_.config.frame_rate_hz);
    reply += '}';
    send(reply, true);
    return true;
  }

  // A reply the view makes itself, in the control channel's error shape (docs/protocol.md).
  void refuse(const std::string& why) {
    std::string reply = R"({"ok":false,"error":)";
    append_json_string(reply, why);
    reply += R"(,"command":null})";
    send(reply, true);
  }

  // The relay (issue 20 point 3): the line goes to the server's control port over this session's
  // own connection, as a TCP client's would, so the parser, hello and token check, rate limit
  // and replies are the control channel's (net/server_commands.cpp), not a second copy here.
  // At most kRelayInFlight lines await their reply: the replies this session must queue for the
  // browser stay bounded, whatever the page sends.
  void relay(std::string line) {
    if (!impl_.controls_error.empty()) return refuse(impl_.controls_error);
    if (line.find_first_of("\r\n") != std::string::npos) {
      return refuse("a control command is one line: one JSON object per message");
    }
    if (in_flight_ >= kRelayInFlight) {
      return refuse("busy: " + std::to_string(kRelayInFlight) + " commands await their reply");
    }
    ++in_flight_;
    relay_out_.push_back(std::move(line) + '\n');
    if (!relay_open_) {
      if (!relay_connecting_) connect_relay();
    } else if (relay_out_.size() == 1) {
      write_relay();
    }
  }

  void connect_relay() {
    relay_connecting_ = true;
    relay_.async_connect(impl_.control, [self = shared_from_this()](beast::error_code ec) {
      self->relay_connecting_ = false;
      if (ec) {
        // every waiting line gets its answer, and the next message tries again
        for (std::size_t i = 0; i < self->relay_out_.size(); ++i) {
          self->refuse("cannot reach the control port: " + ec.message());
        }
        self->relay_out_.clear();
        self->in_flight_ = 0;
        beast::error_code ignored;
        self->relay_.close(ignored);
        return;
      }
      self->relay_open_ = true;
      self->read_relay();
      if (!self->relay_out_.empty()) self->write_relay();
    });
  }

  void write_relay() {
    asio::async_write(relay_, asio::buffer(relay_out_.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;  // the read side sees the connection end
                        self->relay_out_.pop_front();
                        if (!self->relay_out_.empty()) self->write_relay();
                      });
  }

  void read_relay() {
    asio::async_read_until(relay_, asio::dynamic_buffer(relay_in_, kRelayReplyLimit), '\n',
                           [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                             if (ec) {
                               // the server closed it (a reply too long for the limit, the server
                               // stopping, a client dropped for its backlog): a new connection, and
                               // a new hello, on the next message
                               self->relay_open_ = false;
                               self->relay_out_.clear();
                               self->relay_in_.clear();
                               self->in_flight_ = 0;
                               beast::error_code ignored;
                               self->relay_.close(ignored);
                               if (ec != asio::error::operation_aborted) {
                                 self->refuse("the control connection closed: say hello again");
                               }
                               return;
                             }
                             self->send(self->relay_in_.substr(0, n - 1), true);
                             self->relay_in_.erase(0, n);
                             if (self->in_flight_ > 0) --self->in_flight_;
                             self->read_relay();
                           });
  }

  static constexpr std::size_t kRelayInFlight = 16;
  static constexpr std::size_t kRelayReplyLimit = 64 * 1024;

  websocket::stream<beast::tcp_stream> ws_;
  ViewServer::Impl& impl_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  tcp::socket relay_{ws_.get_executor()};  // to the server's control port
  std::deque<std::string> relay_out_;      // lines not yet written to it
  std::string relay_in_;                   // its reply bytes not yet split into lines
  std::size_t in_flight_ = 0;              // lines relayed and not yet answered
  double decimation_ = 1.0;                // one frame in decimation_ ticks (the page's frame rate)
  ViewFramePacer pacer_;                   // which ticks those are
  std::uint64_t frames_since_report_ = 0;  // frames queued for the page since its last report
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
  bool relay_open_ = false;
  bool relay_connecting_ = false;
};

namespace {

/// One HTTP connection: files from memory, 404 for anything else, upgrade on /ws.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ViewServer::Impl& impl)
      : stream_(std::move(socket)), impl_(impl) {
    ++impl_.open;
  }
  ~HttpSession() { --impl_.open; }
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void read() {
    // a fresh parser per request, with the limits the fuzz target uses (net/view_request.hpp)
    parser_.emplace();
    limit_view_parser(*parser_);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return;
                       self->request_ = self->parser_->release();
                       self->handle();
                     });
  }

 private:
  void handle() {
    const ViewRoute route = route_view_request(request_, impl_.config.token);
    if (route.kind == ViewRouteKind::kWebSocket) {
      stream_.expires_never();
      std::make_shared<WsSession>(stream_.release_socket(), impl_)->run(std::move(request_));
      return;
    }
    auto response = std::make_shared<http::response<http::string_body>>();
    response->version(request_.version());
    response->keep_alive(request_.keep_alive());
    response->set(http::field::server, "rtmb-view");
    response->set(http::field::cache_control, "no-store");
    const auto plain = [&](http::status status, const char* body) {
      response->result(status);
      response->set(http::field::content_type, "text/plain");
      response->body() = body;
    };
    switch (route.kind) {
      case ViewRouteKind::kUnauthorized:
        plain(http::status::unauthorized,
              "this view needs the server's token: open the URL rtmb serve printed "
              "(.../?token=...)\n");
        response->set(http::field::www_authenticate, "Bearer");
        break;
      case ViewRouteKind::kForbidden:
        plain(http::status::forbidden, "wrong token\n");
        break;
      case ViewRouteKind::kMethodNotAllowed:
        plain(http::status::method_not_allowed, "only GET\n");
        break;
      case ViewRouteKind::kFile: {
        const StaticFile& file = impl_.files.at(route.file);
        response->result(http::status::ok);
        response->set(http::field::content_type, file.type);
        if (request_.method() == http::verb::get) response->body() = file.content;
        break;
      }
      case ViewRouteKind::kWebSocket:  // handled above
      case ViewRouteKind::kNotFound:
        plain(http::status::not_found, "not found\n");
        break;
    }
    response->prepare_payload();
    count(impl_, [](ViewStats& s) { ++s.http_requests; });
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
                        if (ec || !response->keep_alive()) {
                          beast::error_code ignored;
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return;
                        }
                        self->read();
                      });
  }

  beast::tcp_stream stream_;
  ViewServer::Impl& impl_;
  beast::flat_buffer buffer_;
  std::optional<ViewRequestParser> parser_;
  ViewRequest request_;
};

}  // namespace

void ViewServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      if (open.load() >= config.max_clients) {
        beast::error_code ignored;
        socket.close(ignored);  // the page retries; the others keep their frames
      } else {
        std::make_shared<HttpSession>(std::move(socket), *this)->read();
      }
    }
    accept();
  });
}

void ViewServer::Impl::rebuild(const ModelFile& file) {
  scene = view_scene_json(file);
  geometry = view_geometry(file);
  joints = geometry ? joint_points_of(*geometry) : nullptr;
  points.assign(joints ? static_cast<std::size_t>(joints->n_joint_points()) : 0U,
                Eigen::Vector3d::Zero());
  for (auto& weak : sessions) {
    if (auto session = weak.lock()) session->send(scene, true);
  }
}

std::string ViewServer::Impl::frame_json(const ServerStats& s) const {
  // t, step, q and the drag of one tick (ViewState), never mixed with the stats' newest
  // snapshot, which may be an earlier tick when the network thread lags (a frame would then show
  // a released drag still pulling after its ramp); the snapshot's only until the first one
  const bool have_full = full.n_q > 0;
  const std::vector<double>& qs = have_full ? full.q : s.q;
  const double t = have_full ? full.t : s.sim_time;
  const DragState& drag = have_full ? full.drag : s.drag;
  std::string out = R"({"type":"frame","t":)";
  append_json_number(out, t);
  out += R"(,"step":)" + std::to_string(have_full ? full.step : s.step);
  out += R"(,"paused":)";
  out += s.paused ? "true" : "false";
  out += R"(,"q":[)";
  for (std::size_t i = 0; i < qs.size(); ++i) {
    if (i > 0) out += ',';
    append_json_number(out, qs[i]);
  }
  out += ']';
  // a built-in mechanism's joint points at q, flat [x0, y0, z0, x1, ...] (view_scene_json's
  // `joints`); skipped when q is not this mechanism's (a `load` swapped the model)
  if (joints != nullptr && static_cast<int>(qs.size()) == geometry->n_q()) {
    const Eigen::Map<const Vec> q(qs.data(), static_cast<Eigen::Index>(qs.size()));
    joints->joint_points(t, q, points);
    out += R"(,"points":[)";
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i > 0) out += ',';
      append_json_number(out, points[i].x());
      out += ',';
      append_json_number(out, points[i].y());
      out += ',';
      append_json_number(out, points[i].z());
    }
    out += ']';
  }
  out += R"(,"drift":)";
  append_json_number(out, s.position_drift);
  out += R"(,"velocity_drift":)";
  append_json_number(out, s.velocity_drift);
  out += R"(,"energy":)";
  append_json_number(out, s.energy);
  // step time: the loop's compute histogram (published every ~0.1 s of loop time)
  out += R"(,"step_p50_us":)";
  append_json_number(out, s.loop.compute.count > 0 ? us(s.loop.compute.p50) : NAN);
  out += R"(,"step_p99_us":)";
  append_json_number(out, s.loop.compute.count > 0 ? us(s.loop.compute.p99) : NAN);
  // latency: tick release -> state on the socket (the engine's share of a round trip), and how
  // long inputs waited for their tick
  out += R"(,"turnaround_p50_us":)";
  append_json_number(out, s.turnaround.count > 0 ? us(s.turnaround.p50) : NAN);
  out += R"(,"turnaround_p99_us":)";
  append_json_number(out, s.turnaround.count > 0 ? us(s.turnaround.p99) : NAN);
  out += R"(,"input_wait_p50_us":)";
  append_json_number(out, s.input_wait.count > 0 ? us(s.input_wait.p50) : NAN);
  // the round trip a device sees (issue 20 point 5), from its latest `report`; null once no
  // report has come for kRttReportStaleNs (no latency client runs)
  const bool rtt_fresh =
      s.device_rtt_reports > 0 && monotonic_now_ns() - s.device_rtt_reported_ns < kRttReportStaleNs;
  out += R"(,"device_rtt_p50_us":)";
  append_json_number(out, rtt_fresh ? s.device_rtt_p50_us : NAN);
  out += R"(,"device_rtt_p99_us":)";
  append_json_number(out, rtt_fresh ? s.device_rtt_p99_us : NAN);
  // the mouse spring (`drag`, net/mouse_spring.hpp): drawn as an arrow while it acts
  out += R"(,"drag":{"active":)";
  out += drag.active ? "true" : "false";
  out += R"(,"force":)";
  append_json_point(out, drag.force[0], drag.force[1], drag.force[2]);
  out += R"(,"point":)";
  append_json_point(out, drag.point[0], drag.point[1], drag.point[2]);
  out += R"(,"release_t":)";
  append_json_number(out, drag.release_t);
  out += '}';
  out += R"(,"overruns":)" + std::to_string(s.loop.counters.overruns);
  out += R"(,"clients":)" + std::to_string(s.clients) + '}';
  return out;
}

void ViewServer::Impl::on_frame_timer() {
  timer.expires_after(frame_period);
  timer.async_wait([this](beast::error_code ec) {
    if (ec) return;
    const ServerStats stats = server.stats();
    (void)server.read_view_state(full);  // keeps the last one when none is newer
    // a `load` (from any control client): the pages get the new model's scene before its frames
    if (stats.loads != loads_seen && stats.model_file) {
      loads_seen = stats.loads;
      try {
        rebuild(*stats.model_file);
      } catch (const std::exception& e) {
        spdlog::error("view: cannot draw the loaded model: {}", e.what());
      }
    }
    // the frame is encoded only on ticks some page takes (a 1000-body chain's is ~60 kB)
    std::size_t sent = 0;
    std::string frame;
    for (auto& weak : sessions) {
      if (auto s = weak.lock(); s && s->takes_frame()) {
        if (frame.empty()) frame = frame_json(stats);
        s->send(frame, false);
        ++sent;
      }
    }
    std::erase_if(sessions, [](const std::weak_ptr<WsSession>& w) { return w.expired(); });
    if (sent > 0) count(*this, [sent](ViewStats& st) { st.frames_sent += sent; });
    on_frame_timer();
  });
}

ViewServer::ViewServer(const ViewConfig& config,
                       const Server& server,
                       std::string scene_json,
                       std::unique_ptr<const System> geometry)
    : impl_(std::make_unique<Impl>(config, server, std::move(scene_json), std::move(geometry))) {
  if (!(config.frame_rate_hz > 0.0 && config.frame_rate_hz <= 1000.0)) {
    throw std::invalid_argument("view: frame rate must be in (0, 1000] Hz");
  }
  impl_->frame_period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(1.0 / config.frame_rate_hz));
  for (const auto& [name, type] : kFiles) {
    const std::filesystem::path path = std::filesystem::path(config.web_dir) / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw std::runtime_error("view: cannot read " + path.string() +
                               " (the page's files are copied there by the build; give another "
                               "directory with --web-dir)");
    }
    std::ostringstream content;
    content << in.rdbuf();
    impl_->files.emplace(std::string("/") + name, StaticFile{content.str(), type});
  }
  beast::error_code ec;
  const auto address = asio::ip::make_address_v4(config.bind_address, ec);
  if (ec) throw std::runtime_error("view: bad bind address '" + config.bind_address + "'");
  const tcp::endpoint endpoint(address, config.port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("view: cannot listen on " + config.bind_address + ":" +
                             std::to_string(config.port) + ": " + ec.message());
  }
  impl_->bound_port = impl_->acceptor.local_endpoint().port();
  // the page's commands go to the control port (issue 20 point 3); a TLS control channel would
  // need the relay to be a TLS client pinning the certificate, which it is not
  if (!server.tls_fingerprint().empty()) {
    impl_->controls_error =
        "controls are not available from the view while the control channel uses TLS";
  } else {
    std::string host =
        config.control_address.empty() ? config.bind_address : config.control_address;
    if (host == "0.0.0.0") host = "127.0.0.1";
    const auto control_address = asio::ip::make_address_v4(host, ec);
    if (ec) throw std::runtime_error("view: bad control address '" + host + "'");
    impl_->control = tcp::endpoint(control_address, server.tcp_port());
  }
}

ViewServer::~ViewServer() {
  stop();
}

void ViewServer::start() {
  if (impl_->thread.joinable()) return;
  impl_->accept();
  impl_->on_frame_timer();
  impl_->thread = std::thread([this] {
    try {
      impl_->io.run();
    } catch (const std::exception& e) {
      spdlog::error("view: network thread stopped: {}", e.what());
    }
  });
}

void ViewServer::stop() noexcept {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t ViewServer::port() const noexcept {
  return impl_->bound_port;
}

ViewStats ViewServer::stats() const {
  const std::lock_guard lock(impl_->stats_mutex);
  ViewStats s = impl_->counters;
  s.clients = impl_->open.load();
  return s;
}

}  // namespace rtmb
