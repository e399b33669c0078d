// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for what the live view (net/view_server.cpp) reads from a browser: one HTTP
// request, parsed by Boost.Beast with the view's limits (limit_view_parser), routed by
// route_view_request with and without a token (net/view_request.cpp), and, when it is a WebSocket
// upgrade, the bytes after it as WebSocket frames read by a server-side Beast websocket stream
// with the view's message limit. The input is the raw byte stream from the browser, fed through
// an in-memory stream (beast::test::stream). Besides crashes and sanitizer reports it checks:
//   - a route is consistent: a file route names a served file, with GET or HEAD;
//   - with a token, the page and the WebSocket are routed only when the request carries exactly
//     that token (query or bearer header), never otherwise.
#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/view_request.hpp"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

constexpr std::string_view kToken = "s3cret";

void require(bool condition) {
  if (!condition) std::abort();
}

std::string_view sv(beast::string_view s) {
  return {s.data(), s.size()};
}

void check_route(const rtmb::ViewRequest& request) {
  const rtmb::ViewRoute open = rtmb::route_view_request(request, "");
  if (open.kind == rtmb::ViewRouteKind::kFile) {
    require(open.file == "/index.html" || open.file == "/view.js" || open.file == "/charts.js" ||
            open.file == "/three.module.js" || open.file == "/three.core.js" ||
            open.file == "/OrbitControls.js");
    require(request.method() == http::verb::get || request.method() == http::verb::head);
  }
  require(open.kind != rtmb::ViewRouteKind::kUnauthorized &&
          open.kind != rtmb::ViewRouteKind::kForbidden);

  const rtmb::ViewRoute guarded = rtmb::route_view_request(request, kToken);
  const bool page_or_ws = open.kind == rtmb::ViewRouteKind::kWebSocket ||
                          (open.kind == rtmb::ViewRouteKind::kFile && open.file == "/index.html");
  const bool has_token = [&] {
    if (rtmb::query_token(sv(request.target())) == kToken) return true;
    const auto auth = request.find(http::field::authorization);
    return auth != request.end() && sv(auth->value()) == "Bearer s3cret" &&
           rtmb::query_token(sv(request.target())).empty();
  }();
  if (page_or_ws && !has_token) {
    require(guarded.kind == rtmb::ViewRouteKind::kUnauthorized ||
            guarded.kind == rtmb::ViewRouteKind::kForbidden);
  } else if (open.kind != rtmb::ViewRouteKind::kMethodNotAllowed) {
    require(guarded.kind == open.kind && guarded.file == open.file);
  }
}

// The frames after the upgrade, as the view's WsSession reads them (it discards what it reads).
void read_frames(const rtmb::ViewRequest& request, std::string_view rest, asio::io_context& io) {
  beast::test::stream browser(io);
  beast::test::stream server(io);
  server.connect(browser);
  server.append(beast::string_view(rest.data(), rest.size()));
  server.close_remote();  // the browser's bytes end here: reads then see end of stream
  websocket::stream<beast::test::stream&> ws(server);
  rtmb::limit_view_websocket(ws);
  beast::error_code ec;
  ws.accept(request, ec);
  if (ec) return;
  beast::flat_buffer buffer;
  for (int i = 0; i < 64; ++i) {
    ws.read(buffer, ec);
    if (ec) return;
    buffer.consume(buffer.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  asio::io_context io;
  beast::test::stream browser(io);
  beast::test::stream server(io);
  server.connect(browser);
  server.append(beast::string_view(reinterpret_cast<const char*>(data), size));
  server.close_remote();
  beast::flat_buffer buffer;
  rtmb::ViewRequestParser parser;
  rtmb::limit_view_parser(parser);
  beast::error_code ec;
  http::read(server, buffer, parser, ec);
  if (ec) return 0;
  const rtmb::ViewRequest request = parser.release();
  check_route(request);
  if (rtmb::route_view_request(request, "").kind == rtmb::ViewRouteKind::kWebSocket) {
    // what the parser read past the request, then the rest of the input
    std::string rest = beast::buffers_to_string(buffer.data());
    const beast::string_view unread = server.str();
    rest.append(unread.data(), unread.size());
    read_frames(request, rest, io);
  }
  return 0;
}
