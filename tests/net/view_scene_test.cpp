// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's scene of a planar model with a beam body (net/view_scene.cpp; docs/protocol.md
// "Live view"): each body's q_offset is its true first coordinate (a beam has 3 + n_f), and the
// beam's stations, read back from the JSON as the page reads them, put the deformed axis where
// the engine puts its material points, R + A(theta) ((x, 0) + S(x) q_f).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/multibody/floating_frame_beam.hpp"
#include "engine/multibody/planar_beam_body.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/net/view_server.hpp"
#include "tests/support/beam_slider_crank.hpp"
#include "tests/support/json_check.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

// The slider-crank of Chin 1995 §3.12 whose rod is a beam (as in model_file_test.cpp's
// PlanarModelFileBeam), with three elements: 9 elastic coordinates after the supports, so the
// slider's coordinates start at 3 + 12 = 15, not 6.
const std::string kBeamCrankYaml =
    testing::replace_once(testing::kBeamSliderCrankYaml, "elements: 2", "elements: 3");

// A small JSON reader, enough for the scene (objects, arrays, numbers, strings, literals): the
// test reads the message as the page's JSON.parse does, not by searching its text.
struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  double number = 0.0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& key) const {
    static const Json missing;
    const auto it = object.find(key);
    return it == object.end() ? missing : it->second;
  }
  const Json& operator[](std::size_t k) const { return array.at(k); }
  [[nodiscard]] bool has(const std::string& key) const { return object.contains(key); }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : p_(text.c_str()) {}
  Json value() {
    skip();
    Json j;
    if (*p_ == '{') {
      j.kind = Json::Kind::kObject;
      ++p_;
      skip();
      while (*p_ != '}') {
        std::string key = value().string;
        skip();
        ++p_;  // ':'
        j.object[key] = value();
        skip();
        if (*p_ == ',') ++p_;
        skip();
      }
      ++p_;
    } else if (*p_ == '[') {
      j.kind = Json::Kind::kArray;
      ++p_;
      skip();
      while (*p_ != ']') {
        j.array.push_back(value());
        skip();
        if (*p_ == ',') ++p_;
        skip();
      }
      ++p_;
    } else if (*p_ == '"') {
      j.kind = Json::Kind::kString;
      ++p_;
      while (*p_ != '"') {
        if (*p_ == '\\') ++p_;  // the scene's names hold no escapes worth decoding here
        j.string += *p_++;
      }
      ++p_;
    } else if (std::isalpha(static_cast<unsigned char>(*p_))) {
      j.kind = *p_ == 'n' ? Json::Kind::kNull : Json::Kind::kBool;
      j.number = *p_ == 't' ? 1.0 : 0.0;
      while (std::isalpha(static_cast<unsigned char>(*p_))) ++p_;
    } else {
      j.kind = Json::Kind::kNumber;
      char* end = nullptr;
      j.number = std::strtod(p_, &end);
      p_ = end;
    }
    return j;
  }

 private:
  void skip() {
    while (std::isspace(static_cast<unsigned char>(*p_))) ++p_;
  }
  const char* p_;
};

Json parse_scene(const std::string& text) {
  EXPECT_TRUE(testing::python_accepts_json(text));
  return JsonReader(text).value();
}

// R + A(theta) ((x, 0) + sum_k shape[k] q_f(index[k])), from the station as the scene writes it
Eigen::Vector2d scene_point(const Json& station, const Vec& q, int offset) {
  Eigen::Vector2d u(station["x"].number, 0.0);
  const Json& index = station["index"];
  for (std::size_t k = 0; k < index.array.size(); ++k) {
    const int i = static_cast<int>(index[k].number);
    u += Eigen::Vector2d(station["shape"][k][0].number, station["shape"][k][1].number) *
         q(offset + 3 + i);
  }
  const double c = std::cos(q(offset + 2));
  const double s = std::sin(q(offset + 2));
  return {q(offset) + c * u.x() - s * u.y(), q(offset + 1) + s * u.x() + c * u.y()};
}

TEST(ViewSceneBeam, QOffsetsAreTheModelsCoordinateOffsets) {
  const ModelFile file = parse_model_file(kBeamCrankYaml, "rig.yaml");
  const std::unique_ptr<System> system = make_system(file);
  const auto* model = dynamic_cast<const PlanarMultibody*>(system.get());
  ASSERT_NE(model, nullptr);
  const Json scene = parse_scene(view_scene_json(file));
  const Json& bodies = scene["bodies"];
  ASSERT_EQ(bodies.array.size(), 3u);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(bodies[static_cast<std::size_t>(b)]["q_offset"].number, model->coordinate_offset(b));
  }
  EXPECT_EQ(bodies[2]["q_offset"].number, 15.0);  // 3 (crank) + 3 + 9 (the beam), not 6
  EXPECT_EQ(planar_coordinate_offsets(*file.bodies), (std::vector<int>{0, 3, 15, 18}));
  // only the beam carries a "beam" member
  EXPECT_FALSE(bodies[0].has("beam"));
  EXPECT_TRUE(bodies[1].has("beam"));
  EXPECT_FALSE(bodies[2].has("beam"));
}

TEST(ViewSceneBeam, StationsReproduceTheEnginesDeformedPoints) {
  const ModelFile file = parse_model_file(kBeamCrankYaml, "rig.yaml");
  const std::unique_ptr<System> system = make_system(file);
  const auto* model = dynamic_cast<const PlanarMultibody*>(system.get());
  ASSERT_NE(model, nullptr);
  const Json scene = parse_scene(view_scene_json(file));
  const Json& rod = scene["bodies"][1];
  const int offset = static_cast<int>(rod["q_offset"].number);
  const FloatingFrameBeam beam(planar_detail::beam_spec(file.bodies->bodies[1].beam));
  ASSERT_EQ(model->coordinate_count(1), beam.n_coordinates());

  // a deformed, turned, moved beam: every elastic coordinate nonzero
  State state;
  system->initial_state(state);
  Vec q = state.q;
  q(offset) = 1.5;
  q(offset + 1) = -0.75;
  q(offset + 2) = 0.6;
  for (int i = 0; i < beam.n_elastic(); ++i) q(offset + 3 + i) = 0.05 * std::sin(1.0 + 2.3 * i);

  const Json& stations = rod["beam"]["stations"];
  // nodes and midpoints of 3 elements (7), the joints at x = 0 and x = 12 among them
  ASSERT_EQ(stations.array.size(), 7u);
  double largest_deflection = 0.0;
  for (const Json& st : stations.array) {
    const Eigen::Vector2d drawn = scene_point(st, q, offset);
    const Eigen::Vector2d engine =
        beam.point_position(q.segment(offset, beam.n_coordinates()), beam.station(st["x"].number));
    EXPECT_LT((drawn - engine).norm(), 1e-12) << "station x = " << st["x"].number;
    const double x = st["x"].number;
    const Eigen::Vector2d rigid =
        q.segment<2>(offset) +
        x * Eigen::Vector2d(std::cos(q(offset + 2)), std::sin(q(offset + 2)));
    largest_deflection = std::max(largest_deflection, (engine - rigid).norm());
  }
  // the check means something: the stations are off the rigid axis
  EXPECT_GT(largest_deflection, 0.01);
  // x increases along the axis from 0 to L
  EXPECT_EQ(stations[0]["x"].number, 0.0);
  EXPECT_EQ(stations[stations.array.size() - 1]["x"].number, 12.0);
  for (std::size_t k = 1; k < stations.array.size(); ++k) {
    EXPECT_LT(stations[k - 1]["x"].number, stations[k]["x"].number);
  }
  // each of the body's points (frame origin, joints A and B) sits at its station
  const Json& points = rod["points"];
  const Json& at = rod["beam"]["point_stations"];
  ASSERT_EQ(at.array.size(), points.array.size());
  for (std::size_t k = 0; k < points.array.size(); ++k) {
    EXPECT_EQ(stations[static_cast<std::size_t>(at[k].number)]["x"].number, points[k][0].number);
  }
}

// 100 elements have 201 nodes and midpoints (a thousand would do the same, but compiling that
// model for the test takes seconds)
TEST(ViewSceneBeam, ALongBeamIsDrawnWithAtMost64Stations) {
  std::string text = kBeamCrankYaml;
  text.replace(text.find("elements: 3"), 11, "elements: 100");
  const ModelFile file = parse_model_file(text, "rig.yaml");
  const Json scene = parse_scene(view_scene_json(file));
  const Json& stations = scene["bodies"][1]["beam"]["stations"];
  EXPECT_EQ(stations.array.size(), 64u);  // 64 evenly spaced; the joints at 0 and L among them
  EXPECT_EQ(scene["bodies"][2]["q_offset"].number, 3 + 3 + 3 * 100);
}

TEST(ViewSceneBeam, StationsAddTheJointsOffTheGrid) {
  PlanarBeamSpec b;
  b.length = 2.0;
  b.youngs_modulus = b.density = b.area = b.second_moment = 1.0;
  b.elements = 2;
  const std::vector<double> joints{0.3, 1.0, 5.0};  // 1.0 is a node; 5.0 is clamped to L
  const std::vector<PlanarBeamStation> s = beam_stations(b, joints);
  std::vector<double> xs;
  for (const PlanarBeamStation& p : s) xs.push_back(p.x);
  EXPECT_EQ(xs, (std::vector<double>{0.0, 0.3, 0.5, 1.0, 1.5, 2.0}));
  // at x = 0 of a simply supported beam the supports remove u and v, and the slope's shape
  // function l (xi - 2 xi^2 + xi^3) is zero there: no column at all
  EXPECT_TRUE(s[0].index.empty());
  // mid-element 0 (xi = 1/2, l = 1): the slope at node 0 and node 1's three coordinates, the
  // values of docs/protocol.md's example (elastic order: node 0's slope, node 1's u, v, slope,
  // node 2's u, slope)
  EXPECT_EQ(s[2].index, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(s[2].shape.size(), 4u);
  EXPECT_EQ(s[2].shape[0], Eigen::Vector2d(0.0, 0.125));
  EXPECT_EQ(s[2].shape[1], Eigen::Vector2d(0.5, 0.0));
  EXPECT_EQ(s[2].shape[2], Eigen::Vector2d(0.0, 0.5));
  EXPECT_EQ(s[2].shape[3], Eigen::Vector2d(0.0, -0.125));
  EXPECT_THROW((void)beam_stations(b, {}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
