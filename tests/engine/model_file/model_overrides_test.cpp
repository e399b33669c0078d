// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Overrides by key path (include/rtmb/models/model_overrides.hpp): each replaces a value before
// the file is read, so it is validated like the file's own values; a path that leads nowhere is
// an error of its own.
#include "engine/model_file/model_overrides.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rtmb {
namespace {

constexpr const char* kPendulum =
    "name: p\n"
    "bodies:\n"
    "  - {name: link, mass: 1.0, inertia: 0.1, pose: [0.5, 0, 0]}\n"
    "  - {name: bob, mass: 2.0, inertia: 0.1, pose: [1.5, 0, 0]}\n"
    "joints:\n"
    "  - {name: pivot, type: revolute, body_i: ground, point_i: [0, 0], body_j: link, "
    "point_j: [-0.5, 0]}\n"
    "  - {name: weld, type: revolute, body_i: link, point_i: [0.5, 0], body_j: bob, "
    "point_j: [-0.5, 0]}\n"
    "integration: {method: rk4, dt: 0.001}\n";

std::string error_of(const std::vector<ModelOverride>& o) {
  try {
    (void)parse_model_file(kPendulum, "p.yaml", o);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ModelOverrides, SetValuesByIndexAndByName) {
  const std::vector<ModelOverride> o{{"integration.dt", "5e-4"},
                                     {"bodies[1].mass", "3.5"},
                                     {"bodies[link].inertia", "0.25"},
                                     {"integration.stabilizer", "none"}};
  const ModelFile f = parse_model_file(kPendulum, "p.yaml", o);
  EXPECT_EQ(f.settings.dt, 5e-4);
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kNone);
  ASSERT_EQ(f.bodies->bodies.size(), 2u);
  EXPECT_EQ(f.bodies->bodies[1].mass, 3.5);
  EXPECT_EQ(f.bodies->bodies[0].inertia, 0.25);
  EXPECT_EQ(f.bodies->bodies[0].mass, 1.0);  // untouched
}

TEST(ModelOverrides, AddsAMissingKeyAndTheLaterOverrideWins) {
  const std::vector<ModelOverride> o{{"serve.rate_hz", "500"}, {"serve.rate_hz", "250"}};
  EXPECT_EQ(parse_model_file(kPendulum, "p.yaml", o).rate_hz, 250.0);
}

TEST(ModelOverrides, ValuesAreValidatedAsTheFileIsAndTheOverrideIsNamed) {
  // the replaced scalar keeps its place in the file: line 3, column 24 is the mass of link
  EXPECT_EQ(error_of({{"bodies[0].mass", "-1"}}),
            "p.yaml:3:24: key 'bodies[0].mass': must be > 0 (value set by override "
            "'bodies[0].mass' = -1)");
  EXPECT_NE(error_of({{"integration.dtt", "1"}}).find("key 'integration.dtt': unknown key"),
            std::string::npos);
  EXPECT_NE(error_of({{"integration.method", "rk5"}}).find("key 'integration.method'"),
            std::string::npos);
}

// the error's parts stay readable one by one after the override is named (the Python package and
// the server's error replies read them, not the message text)
TEST(ModelOverrides, BlamedErrorKeepsItsPositionKeyAndReason) {
  try {
    (void)parse_model_file(kPendulum, "p.yaml",
                           std::vector<ModelOverride>{{"bodies[0].mass", "-1"}});
    FAIL() << "a negative mass was accepted";
  } catch (const ModelFileError& e) {
    EXPECT_EQ(e.file(), "p.yaml");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.column(), 24);
    EXPECT_EQ(e.key(), "bodies[0].mass");
    EXPECT_EQ(e.reason(), "must be > 0 (value set by override 'bodies[0].mass' = -1)");
  }
}

TEST(ModelOverrides, PathsThatLeadNowhereAreErrors) {
  EXPECT_EQ(error_of({{"bodies[2].mass", "1"}}),
            "p.yaml: override 'bodies[2].mass': 'bodies' has 2 entries");
  EXPECT_EQ(error_of({{"bodies[wheel].mass", "1"}}),
            "p.yaml: override 'bodies[wheel].mass': 'bodies' has no entry named wheel");
  EXPECT_EQ(error_of({{"name.first", "1"}}),
            "p.yaml: override 'name.first': 'name' is not a mapping");
  EXPECT_EQ(error_of({{"integration[0]", "1"}}),
            "p.yaml: override 'integration[0]': 'integration' is not a list");
  EXPECT_NE(error_of({{"integration.dt", "[1, "}}).find("is not YAML"), std::string::npos);
}

}  // namespace
}  // namespace rtmb
