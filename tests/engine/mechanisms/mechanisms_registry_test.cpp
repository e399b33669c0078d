// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The name -> mechanism registry (include/rtmb/models/mechanisms.hpp): stable listing, lookup, run
// defaults, construction of every entry and the error messages for bad names and options.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "rtmb/models/mechanisms.hpp"

namespace rtmb {
namespace {

constexpr std::string_view kExpectedNames =
    "pendulum, double_pendulum, slider_crank, andrews, robot_parabola, robot_sine, chain, "
    "four_bar, rolling_disc, deformable_slider_crank";

// Runs `make` and returns the std::invalid_argument message; fails the test if nothing is thrown.
template <class F>
std::string invalid_argument_message(F make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected std::invalid_argument";
  return {};
}

TEST(MechanismRegistry, ListsAllMechanismsInStableOrder) {
  EXPECT_EQ(mechanism_names(), kExpectedNames);
  std::string joined;
  for (const MechanismInfo& info : mechanisms()) {
    if (!joined.empty()) joined += ", ";
    joined += info.name;
  }
  EXPECT_EQ(joined, kExpectedNames);
}

TEST(MechanismRegistry, RunDefaultsAreTheDocumentedOnes) {
  struct Expected {
    std::string_view name;
    double dt;
    double t_end;
  };
  const Expected expected[] = {
      {"pendulum", 1e-3, 10.0}, {"double_pendulum", 1e-3, 10.0}, {"slider_crank", 1e-3, 10.0},
      {"andrews", 5e-5, 0.03},  {"robot_parabola", 1e-3, 10.0},  {"robot_sine", 1e-3, 10.0},
      {"chain", 1e-3, 5.0},
  };
  for (const Expected& e : expected) {
    const MechanismInfo* info = find_mechanism(e.name);
    ASSERT_NE(info, nullptr) << e.name;
    EXPECT_EQ(info->name, e.name);
    EXPECT_EQ(info->default_dt, e.dt) << e.name;
    EXPECT_EQ(info->default_t_end, e.t_end) << e.name;
    EXPECT_FALSE(info->description.empty()) << e.name;
  }
}

TEST(MechanismRegistry, EveryEntryBuildsASystemOfThatName) {
  for (const MechanismInfo& info : mechanisms()) {
    const auto sys = make_mechanism(info.name);
    ASSERT_NE(sys, nullptr) << info.name;
    EXPECT_EQ(sys->name(), info.name);
    EXPECT_EQ(find_mechanism(info.name), &info);
  }
}

TEST(MechanismRegistry, FindReturnsNullForUnknownNames) {
  EXPECT_EQ(find_mechanism("nope"), nullptr);
  EXPECT_EQ(find_mechanism(""), nullptr);
  EXPECT_EQ(find_mechanism("Pendulum"), nullptr);  // names are case-sensitive
  EXPECT_EQ(find_mechanism("pendulum "), nullptr);
}

TEST(MechanismRegistry, UnknownNameThrowsAndListsValidNames) {
  const std::string msg = invalid_argument_message([] { (void)make_mechanism("nope"); });
  EXPECT_NE(msg.find("unknown mechanism 'nope'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::string("valid: ") + std::string(kExpectedNames)), std::string::npos)
      << msg;
}

TEST(MechanismRegistry, ChainOptionsArePassedThrough) {
  const auto open = make_mechanism("chain", {7, false});
  EXPECT_EQ(open->n_q(), 14);
  EXPECT_EQ(open->n_lambda(), 7);
  const auto loop = make_mechanism("chain", {7, true});
  EXPECT_EQ(loop->n_q(), 14);
  EXPECT_EQ(loop->n_lambda(), 9);
  // default options: 5 open links
  const auto dflt = make_mechanism("chain");
  EXPECT_EQ(dflt->n_q(), 10);
  EXPECT_EQ(dflt->n_lambda(), 5);
}

TEST(MechanismRegistry, InvalidChainOptionsThrowWithAClearMessage) {
  const std::string zero = invalid_argument_message([] {
    (void)make_mechanism("chain", {0, false});
  });
  EXPECT_NE(zero.find("chain_links"), std::string::npos) << zero;
  EXPECT_NE(zero.find("got 0"), std::string::npos) << zero;
  invalid_argument_message([] { (void)make_mechanism("chain", {-3, false}); });
  for (int links : {1, 2}) {
    const std::string loop = invalid_argument_message([links] {
      (void)make_mechanism("chain", {links, true});
    });
    EXPECT_NE(loop.find("chain_loop"), std::string::npos) << loop;
    EXPECT_NE(loop.find(">= 3"), std::string::npos) << loop;
  }
  EXPECT_NO_THROW((void)make_mechanism("chain", {3, true}));
  EXPECT_NO_THROW((void)make_mechanism("chain", {1, false}));
}

TEST(MechanismRegistry, OtherMechanismsIgnoreChainOptions) {
  const auto sys = make_mechanism("pendulum", {0, true});
  EXPECT_EQ(sys->n_q(), 2);
  EXPECT_EQ(sys->n_lambda(), 1);
}

}  // namespace
}  // namespace rtmb
