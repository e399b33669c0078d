// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The `load` path rule (net/load_permission.hpp, issue 15): what resolves under the root, and what
// does not, including `..`, absolute paths and symlinks out of the folder.
#include "net/load_permission.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace rtmb {
namespace {

namespace fs = std::filesystem;

// A fresh folder "models" with a.yaml, sub/b.yaml, and links out of it; "outside.yaml" next to it.
class LoadPermission : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::path(::testing::TempDir()) / ("rtmb_load_permission_" + std::to_string(::getpid()));
    fs::remove_all(base_);
    root_ = base_ / "models";
    fs::create_directories(root_ / "sub");
    std::ofstream(root_ / "a.yaml") << "mechanism: pendulum\n";
    std::ofstream(root_ / "sub" / "b.yaml") << "mechanism: pendulum\n";
    std::ofstream(base_ / "outside.yaml") << "mechanism: pendulum\n";
    fs::create_symlink(base_ / "outside.yaml", root_ / "link_out.yaml");
    fs::create_directory_symlink(base_, root_ / "dir_out");
    fs::create_symlink(root_ / "a.yaml", root_ / "link_in.yaml");
    root_ = fs::canonical(root_);
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path base_;
  fs::path root_;
};

TEST_F(LoadPermission, FilesUnderTheRootResolveToTheirCanonicalPath) {
  EXPECT_EQ(permitted_model_path(root_, "a.yaml"), root_ / "a.yaml");
  EXPECT_EQ(permitted_model_path(root_, "sub/b.yaml"), root_ / "sub" / "b.yaml");
  EXPECT_EQ(permitted_model_path(root_, "sub/../a.yaml"), root_ / "a.yaml");
  EXPECT_EQ(permitted_model_path(root_, (root_ / "a.yaml").string()), root_ / "a.yaml");
  // a link that stays inside is resolved to its target, which is what gets opened
  EXPECT_EQ(permitted_model_path(root_, "link_in.yaml"), root_ / "a.yaml");
  // a file not there yet, under the root: permitted (the load then fails with "cannot open")
  EXPECT_EQ(permitted_model_path(root_, "new.yaml"), root_ / "new.yaml");
}

TEST_F(LoadPermission, PathsOutsideTheRootAreRefusedWhetherTheyExistOrNot) {
  for (const char* requested : {"/etc/shadow", "/etc/passwd", "../outside.yaml", "../x",
                                "../../../../etc/passwd", "/no/such/dir/x.yaml", "link_out.yaml",
                                "dir_out/outside.yaml", "not_there/../dir_out/outside.yaml",
                                "sub/../../outside.yaml", "", ".", "sub/..", "../models"}) {
    EXPECT_EQ(permitted_model_path(root_, requested), std::nullopt) << requested;
  }
  // a sibling folder whose name starts with the root's is not under it
  fs::create_directories(base_ / "models2");
  std::ofstream(base_ / "models2" / "c.yaml") << "mechanism: pendulum\n";
  EXPECT_EQ(permitted_model_path(root_, "../models2/c.yaml"), std::nullopt);
  EXPECT_EQ(permitted_model_path(root_, std::string_view("a.yaml\0x", 8)), std::nullopt);
}

TEST_F(LoadPermission, NoRootPermitsNothing) {
  EXPECT_EQ(permitted_model_path(fs::path(), (root_ / "a.yaml").string()), std::nullopt);
  EXPECT_EQ(permitted_model_path(fs::path(), "a.yaml"), std::nullopt);
}

TEST_F(LoadPermission, TheRootIsModelsDirElseTheServedFilesFolderElseNone) {
  const std::string models = (base_ / "models" / "sub" / "..").string();
  EXPECT_EQ(load_root_for(models, std::nullopt), root_);
  EXPECT_EQ(load_root_for(models, (base_ / "outside.yaml").string()), root_);
  EXPECT_EQ(load_root_for("", (root_ / "sub" / "b.yaml").string()), root_ / "sub");
  EXPECT_EQ(load_root_for("", std::nullopt), fs::path());
  EXPECT_THROW((void)load_root_for((base_ / "no_such_dir").string(), std::nullopt),
               std::invalid_argument);
  EXPECT_THROW((void)load_root_for((root_ / "a.yaml").string(), std::nullopt),
               std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
