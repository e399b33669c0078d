// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's request handling (net/view_request.hpp): the route of each request and the
// token check of `rtmb serve --token` on the view's port (issue 15).
#include "net/view_request.hpp"

#include <gtest/gtest.h>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <string>

namespace rtmb {
namespace {

namespace http = boost::beast::http;

ViewRequest get(const std::string& target, http::verb verb = http::verb::get) {
  ViewRequest r{verb, target, 11};
  r.set(http::field::host, "127.0.0.1");
  return r;
}

ViewRequest upgrade(const std::string& target) {
  ViewRequest r = get(target);
  r.set(http::field::connection, "Upgrade");
  r.set(http::field::upgrade, "websocket");
  r.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  r.set(http::field::sec_websocket_version, "13");
  return r;
}

TEST(ViewRequest, WithoutATokenEveryServedFileAndTheWebSocketAreOpen) {
  EXPECT_EQ(route_view_request(get("/"), "").kind, ViewRouteKind::kFile);
  EXPECT_EQ(route_view_request(get("/"), "").file, "/index.html");
  EXPECT_EQ(route_view_request(get("/view.js?x=1"), "").file, "/view.js");
  EXPECT_EQ(route_view_request(get("/three.core.js"), "").file, "/three.core.js");
  EXPECT_EQ(route_view_request(get("/OrbitControls.js"), "").file, "/OrbitControls.js");
  EXPECT_EQ(route_view_request(get("/charts.js"), "").file, "/charts.js");
  EXPECT_EQ(route_view_request(upgrade("/ws"), "").kind, ViewRouteKind::kWebSocket);
  EXPECT_EQ(route_view_request(get("/etc/passwd"), "").kind, ViewRouteKind::kNotFound);
  EXPECT_EQ(route_view_request(get("/ws"), "").kind, ViewRouteKind::kNotFound);  // no upgrade
  EXPECT_EQ(route_view_request(get("/", http::verb::post), "").kind,
            ViewRouteKind::kMethodNotAllowed);
  EXPECT_EQ(route_view_request(get("/", http::verb::head), "").kind, ViewRouteKind::kFile);
}

TEST(ViewRequest, ATokenGuardsThePageAndTheWebSocket) {
  const std::string token = "s3cret";
  // missing: 401; wrong (also a prefix, or longer): 403; right: served
  EXPECT_EQ(route_view_request(get("/"), token).kind, ViewRouteKind::kUnauthorized);
  EXPECT_EQ(route_view_request(get("/index.html"), token).kind, ViewRouteKind::kUnauthorized);
  EXPECT_EQ(route_view_request(get("/?token="), token).kind, ViewRouteKind::kUnauthorized);
  EXPECT_EQ(route_view_request(get("/?token=guess"), token).kind, ViewRouteKind::kForbidden);
  EXPECT_EQ(route_view_request(get("/?token=s3cre"), token).kind, ViewRouteKind::kForbidden);
  EXPECT_EQ(route_view_request(get("/?token=s3crets"), token).kind, ViewRouteKind::kForbidden);
  EXPECT_EQ(route_view_request(get("/?token=s3cret"), token).kind, ViewRouteKind::kFile);
  EXPECT_EQ(route_view_request(get("/index.html?a=b&token=s3cret"), token).kind,
            ViewRouteKind::kFile);
  EXPECT_EQ(route_view_request(upgrade("/ws"), token).kind, ViewRouteKind::kUnauthorized);
  EXPECT_EQ(route_view_request(upgrade("/ws?token=nope"), token).kind, ViewRouteKind::kForbidden);
  EXPECT_EQ(route_view_request(upgrade("/ws?token=s3cret"), token).kind, ViewRouteKind::kWebSocket);
  // a POST with the token is still only GET
  EXPECT_EQ(route_view_request(get("/?token=s3cret", http::verb::post), token).kind,
            ViewRouteKind::kMethodNotAllowed);
  // the scripts are the repository's static files: served without the token (the page's
  // <script> tags carry no query)
  EXPECT_EQ(route_view_request(get("/view.js"), token).kind, ViewRouteKind::kFile);
  EXPECT_EQ(route_view_request(get("/three.module.js"), token).kind, ViewRouteKind::kFile);
}

TEST(ViewRequest, TheTokenMayComeAsABearerHeader) {
  ViewRequest r = upgrade("/ws");
  r.set(http::field::authorization, "Bearer s3cret");
  EXPECT_EQ(route_view_request(r, "s3cret").kind, ViewRouteKind::kWebSocket);
  r.set(http::field::authorization, "Bearer wrong");
  EXPECT_EQ(route_view_request(r, "s3cret").kind, ViewRouteKind::kForbidden);
  r.set(http::field::authorization, "Basic czNjcmV0");
  EXPECT_EQ(route_view_request(r, "s3cret").kind, ViewRouteKind::kUnauthorized);
}

TEST(ViewRequest, QueryTokenIsPercentDecodedAndTheUrlEncodingRoundTrips) {
  EXPECT_EQ(query_token("/?token=a%20b%2Fc"), "a b/c");
  EXPECT_EQ(query_token("/?x=1&token=abc&token=def"), "abc");
  EXPECT_EQ(query_token("/?mytoken=abc"), "");
  EXPECT_EQ(query_token("/?token=abc#frag"), "abc");
  EXPECT_EQ(query_token("/token=abc"), "");
  // a malformed escape gives no token rather than a guess
  EXPECT_EQ(query_token("/?token=ab%2"), "");
  EXPECT_EQ(query_token("/?token=ab%zz"), "");
  EXPECT_EQ(query_token("/?token=%"), "");
  const std::string odd = "p@ss w/rd&token=x?#%~";
  EXPECT_EQ(url_encode_token(odd), "p%40ss%20w%2Frd%26token%3Dx%3F%23%25~");
  EXPECT_EQ(query_token("/?token=" + url_encode_token(odd)), odd);
}

TEST(ViewRequest, SameTokenComparesWholeStrings) {
  EXPECT_TRUE(same_token("abc", "abc"));
  EXPECT_FALSE(same_token("abc", "abd"));
  EXPECT_FALSE(same_token("abc", "ab"));
  EXPECT_FALSE(same_token("", "a"));
}

}  // namespace
}  // namespace rtmb
