// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The control channel's `load` over loopback (issue 15, security): a client cannot make the
// server read, or probe for, a file outside the permitted folder. Every refused path gets one
// and the same reply, which quotes nothing, and the server keeps serving.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"

namespace rtmb {
namespace {

namespace fs = std::filesystem;
using testing::connect_and_hello;
using testing::eventually;
using testing::loopback_config;

// written out by hand: the reply is the contract (docs/protocol.md, "load")
constexpr const char* kRefused =
    R"x({"ok":false,"error":"not permitted (load takes a built-in mechanism name, or a model file )x"
    R"x(under the served model file's folder or rtmb serve --models DIR)","command":"load"})x";

// A folder "models" (served.yaml, other.yaml, links out) with "outside.yaml" next to it.
class ServerLoadPermission : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::path(::testing::TempDir()) / ("rtmb_server_load_" + std::to_string(::getpid()));
    fs::remove_all(base_);
    models_ = base_ / "models";
    fs::create_directories(models_);
    std::ofstream(models_ / "served.yaml") << "mechanism: pendulum\n";
    std::ofstream(models_ / "other.yaml") << "mechanism: double_pendulum\n";
    // a valid model outside: refused all the same
    std::ofstream(base_ / "outside.yaml") << "mechanism: double_pendulum\n";
    fs::create_symlink("/etc/passwd", models_ / "passwd.yaml");
    fs::create_symlink(base_ / "outside.yaml", models_ / "outside_link.yaml");
  }
  void TearDown() override { fs::remove_all(base_); }

  // The reply to load of `model`, built as a JSON line.
  static std::string load(Client& client, const std::string& model) {
    std::string line = R"({"command":"load","model":")";
    for (const char c : model) {
      if (c == '"' || c == '\\') line += '\\';
      line += c;
    }
    return client.request(line + "\"}");
  }

  // Every path outside `models_`, existing or not, readable or not, is refused the same way.
  void expect_outside_paths_refused(Client& client) {
    for (const std::string& path :
         {std::string("/etc/shadow"), std::string("/etc/passwd"), std::string("../x"),
          std::string("../outside.yaml"), (base_ / "outside.yaml").string(),
          std::string("../../../../../../etc/passwd"), std::string("passwd.yaml"),
          std::string("outside_link.yaml"), std::string("/no/such/folder/model.yaml"),
          std::string("no_such_dir/../../outside.yaml")}) {
      const std::string reply = load(client, path);
      EXPECT_EQ(reply, kRefused) << path;
      EXPECT_EQ(reply.find("root:"), std::string::npos) << reply;
    }
  }

  fs::path base_;
  fs::path models_;
};

TEST_F(ServerLoadPermission, OutsideTheServedFilesFolderEveryPathGetsTheSameRefusal) {
  ServerConfig config = loopback_config();
  config.model_file = load_model_file((models_ / "served.yaml").string());
  Server server(config);
  server.start();
  Client client;
  (void)connect_and_hello(client, server);

  expect_outside_paths_refused(client);
  // the server keeps serving: it steps, answers, and a permitted file still loads
  const std::uint64_t before = server.stats().step;
  EXPECT_TRUE(eventually([&] { return server.stats().step > before + 10; }));
  const std::string ok = load(client, "other.yaml");
  EXPECT_TRUE(ok.starts_with(R"({"ok":true,"command":"load")")) << ok;
  EXPECT_NE(ok.find(R"("model":"double_pendulum")"), std::string::npos) << ok;
  EXPECT_TRUE(eventually([&] { return server.stats().loads == 1; }));
  // a missing file inside the folder may say so: it is the operator's folder
  const std::string missing = load(client, "missing.yaml");
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  EXPECT_TRUE(server.running());
}

TEST_F(ServerLoadPermission, ABuiltInServedWithoutModelsDirPermitsNoFileButEveryBuiltIn) {
  Server server(loopback_config());  // the pendulum, by name
  server.start();
  Client client;
  (void)connect_and_hello(client, server);

  expect_outside_paths_refused(client);
  EXPECT_EQ(load(client, (models_ / "other.yaml").string()), kRefused);
  EXPECT_EQ(load(client, "served.yaml"), kRefused);
  const std::string builtin = load(client, "double_pendulum");
  EXPECT_TRUE(builtin.starts_with(R"({"ok":true,"command":"load")")) << builtin;
  EXPECT_TRUE(server.running());
}

TEST_F(ServerLoadPermission, ModelsDirIsTheFolderOfLoadableFiles) {
  ServerConfig config = loopback_config();
  config.models_dir = models_.string();
  Server server(config);
  server.start();
  Client client;
  (void)connect_and_hello(client, server);

  expect_outside_paths_refused(client);
  const std::string ok = load(client, (models_ / "other.yaml").string());
  EXPECT_TRUE(ok.starts_with(R"({"ok":true,"command":"load")")) << ok;
  EXPECT_TRUE(server.running());
}

TEST(ServerLoadPermissionSetup, AModelsDirThatIsNotADirectoryIsRefusedAtSetup) {
  ServerConfig config = loopback_config();
  config.models_dir = "/no/such/folder";
  EXPECT_THROW(Server server(config), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
