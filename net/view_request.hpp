// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// What the live view (net/view_server.cpp) makes of one browser request, as pure functions so
// the server and the fuzz target (fuzz/fuzz_view.cpp) run the same code: the parser's limits, the
// token check (issue 15: `rtmb serve --token T` guards the view's port too) and the route.
//
// The token travels as `?token=T` on the page's URL (the printed view URL carries it; view.js
// copies it onto the WebSocket URL) or as `Authorization: Bearer T`. Guarded: the page and the
// WebSocket, which carry the model and its live state. The scripts (view.js, three.js) are the
// same static files as in the repository and reveal nothing, so they are served to anyone: the
// browser loads them from <script> tags that carry no query.

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rtmb {

using ViewRequest = boost::beast::http::request<boost::beast::http::string_body>;
using ViewRequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

/// A request's header may not exceed this (a browser's GET is well under 2 KiB).
inline constexpr std::uint32_t kViewHeaderLimit = 8 * 1024;
/// A request body may not exceed this (the page sends only GETs, without a body).
inline constexpr std::uint64_t kViewBodyLimit = 1024;

/// A WebSocket message from the page may not exceed this (the page sends control-command lines,
/// which the control channel caps at 4 KiB too; Beast's default would let a browser make the view
/// buffer 16 MiB per connection).
inline constexpr std::uint64_t kViewWebSocketMessageLimit = 4096;

/// Sets the limits above on a fresh parser (used for every request the view reads).
void limit_view_parser(ViewRequestParser& parser);

/// Sets the message limit on the view's server-side WebSocket (a boost::beast::websocket::stream).
template <class WebSocketStream>
void limit_view_websocket(WebSocketStream& ws) {
  ws.read_message_max(kViewWebSocketMessageLimit);
}

/// What to answer.
enum class ViewRouteKind {
  kFile,              ///< 200 with the file (GET) or its headers (HEAD)
  kWebSocket,         ///< upgrade to the frame stream
  kUnauthorized,      ///< 401: a token is required and none was given
  kForbidden,         ///< 403: the token given is wrong
  kNotFound,          ///< 404
  kMethodNotAllowed,  ///< 405: not GET or HEAD
};

struct ViewRoute {
  ViewRouteKind kind = ViewRouteKind::kNotFound;
  std::string file;  ///< kFile: the served name, e.g. "/index.html"
};

/// The route of a parsed request. `token` empty: no token required. Knows the files the view
/// serves (/index.html, /view.js, /charts.js, /three.module.js, /three.core.js,
/// /OrbitControls.js; "/" is /index.html).
[[nodiscard]] ViewRoute route_view_request(const ViewRequest& request, std::string_view token);

/// The percent-decoded value of `token=` in the target's query; empty when there is none or it is
/// malformed (a bad %-escape).
[[nodiscard]] std::string query_token(std::string_view target);

/// `token` percent-encoded for a URL query (unreserved characters kept, RFC 3986 2.3).
[[nodiscard]] std::string url_encode_token(std::string_view token);

/// Equal strings, in time that depends on the lengths only (not on where they first differ), so
/// response timing does not reveal a token's prefix.
[[nodiscard]] bool same_token(std::string_view a, std::string_view b) noexcept;

}  // namespace rtmb
