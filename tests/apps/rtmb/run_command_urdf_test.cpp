// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb run robot.urdf` (issue 19): a URDF robot no one here wrote (the Barrett WAM of Debian's
// dart-doc) runs in joint space under standard gravity, without a stabilizer, and keeps its
// energy; a URDF the tree cannot take fails before the first step, naming file, line and joint.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/json_check.hpp"
#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace {

using rtmb::testing::contains_all;
using rtmb::testing::python_accepts_json;
using rtmb::testing::run_rtmb;
using rtmb::testing::write_temp_file;

TEST(RunCommandUrdf, TheWamRunsInJointSpace) {
  const auto r = run_rtmb("run /usr/share/doc/dart/data/urdf/wam/wam.urdf --t-end 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(python_accepts_json(r.last_line)) << r.last_line;
  EXPECT_TRUE(contains_all(r.last_line, {R"("model":"wam")", R"("stabilizer":"none")",
                                         R"("steps":500)", R"("ok":true)"}));
}

TEST(RunCommandUrdf, AFloatingJointIsRefusedByNameAndLine) {
  const std::string file = write_temp_file("rtmb_floating.urdf", R"(<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="body">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <joint name="free" type="floating">
    <parent link="base"/>
    <child link="body"/>
  </joint>
</robot>
)");
  const auto r = run_rtmb("run " + file + " --t-end 0.01");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"rtmb_floating.urdf:7:3: key 'joint free': this joint type is "
                                   "not supported yet"}));
}

}  // namespace
