// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb run robot.urdf` (issue 19): a URDF robot no one here wrote (the Barrett WAM of Debian's
// dart-doc) runs in joint space under standard gravity, without a stabilizer, and keeps its
// energy; a body on a floating joint runs; a URDF the tree cannot take fails before the first
// step, naming file, line and joint.
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

// A free body on a URDF floating joint runs (the normalization row makes PStab the default); the
// same joint with a damper is refused before the first step, naming file, line and joint.
TEST(RunCommandUrdf, AFloatingJointRunsAndADampedOneIsRefusedByNameAndLine) {
  const std::string robot = R"(<?xml version="1.0"?>
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
)";
  const std::string file = write_temp_file("rtmb_floating.urdf", robot);
  const auto r = run_rtmb("run " + file + " --t-end 0.01");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(
      r.last_line, {R"("model":"r")", R"("stabilizer":"pstab")", R"("steps":10)", R"("ok":true)"}))
      << r.last_line;
  std::string damped = robot;
  damped.replace(damped.find("  </joint>"), 0, "    <dynamics damping=\"0.1\"/>\n");
  const std::string damped_file = write_temp_file("rtmb_floating_damped.urdf", damped);
  const auto refused = run_rtmb("run " + damped_file + " --t-end 0.01");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_TRUE(contains_all(refused.out,
                           {"rtmb_floating_damped.urdf:7:3: key 'joint free': <dynamics damping> "
                            "is not supported on a planar or floating joint"}))
      << refused.out;
}

}  // namespace
