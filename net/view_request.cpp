// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's request handling (net/view_request.hpp): limits, token check, route.
#include "net/view_request.hpp"

#include <array>
#include <boost/beast/websocket/rfc6455.hpp>

namespace rtmb {

namespace http = boost::beast::http;

namespace {

std::string_view sv(boost::beast::string_view s) noexcept {
  return {s.data(), s.size()};
}

constexpr std::array<std::string_view, 7> kServed = {
    "/index.html",      "/view.js",       "/charts.js",       "/instanced_bodies.js",
    "/three.module.js", "/three.core.js", "/OrbitControls.js"};

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The token the request carries: the query's, else the Authorization header's bearer token.
std::string request_token(const ViewRequest& request) {
  std::string token = query_token(sv(request.target()));
  if (!token.empty()) return token;
  const auto auth = request.find(http::field::authorization);
  if (auth == request.end()) return {};
  constexpr std::string_view kBearer = "Bearer ";
  const std::string_view value = sv(auth->value());
  if (value.size() <= kBearer.size() || value.substr(0, kBearer.size()) != kBearer) return {};
  return std::string(value.substr(kBearer.size()));
}

}  // namespace

void limit_view_parser(ViewRequestParser& parser) {
  parser.header_limit(kViewHeaderLimit);
  parser.body_limit(kViewBodyLimit);
}

std::string query_token(std::string_view target) {
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view query = target.substr(q + 1);
  if (const std::size_t hash = query.find('#'); hash != std::string_view::npos) {
    query = query.substr(0, hash);
  }
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    constexpr std::string_view kKey = "token=";
    if (pair.substr(0, kKey.size()) != kKey) continue;
    const std::string_view raw = pair.substr(kKey.size());
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '%') {
        out += raw[i] == '+' ? ' ' : raw[i];
        continue;
      }
      if (i + 2 >= raw.size()) return {};  // fewer than two characters after '%'
      const int hi = hex_value(raw[i + 1]);
      const int lo = hex_value(raw[i + 2]);
      if (hi < 0 || lo < 0) return {};
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    return out;
  }
  return {};
}

std::string url_encode_token(std::string_view token) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : token) {
    const auto u = static_cast<unsigned char>(c);
    const bool unreserved = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                            (u >= '0' && u <= '9') || u == '-' || u == '.' || u == '_' || u == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

bool same_token(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

ViewRoute route_view_request(const ViewRequest& request, std::string_view token) {
  std::string_view path = sv(request.target());
  if (const std::size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (path == "/") path = "/index.html";
  const bool websocket = path == "/ws" && boost::beast::websocket::is_upgrade(request);
  const bool guarded = websocket || path == "/index.html";
  if (!token.empty() && guarded) {
    const std::string given = request_token(request);
    if (given.empty()) return {ViewRouteKind::kUnauthorized, {}};
    if (!same_token(given, token)) return {ViewRouteKind::kForbidden, {}};
  }
  if (websocket) return {ViewRouteKind::kWebSocket, {}};
  if (request.method() != http::verb::get && request.method() != http::verb::head) {
    return {ViewRouteKind::kMethodNotAllowed, {}};
  }
  for (const std::string_view served : kServed) {
    if (path == served) return {ViewRouteKind::kFile, std::string(served)};
  }
  return {ViewRouteKind::kNotFound, {}};
}

}  // namespace rtmb
