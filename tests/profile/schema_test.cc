// schema_test.cc: the writer's output against docs/profile.schema.json.
//
// A small validator for the keywords the schema uses (type, required,
// properties, items, enum, const, minimum, maximum, pattern), plus the
// check that every key the writer writes is in the schema and vice versa,
// so the schema and the writer cannot drift apart.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

using Json = nlohmann::json;

Json load(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

bool has_type(const Json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}

// Appends "where: problem" for every violation.
void validate(const Json& v, const Json& s, const std::string& where,
              std::vector<std::string>* errors) {
  auto fail = [&](const std::string& what) {
    errors->push_back(where + ": " + what);
  };
  if (s.contains("type") && !has_type(v, s["type"])) {
    return fail("not of type " + s["type"].get<std::string>());
  }
  if (s.contains("const") && v != s["const"]) fail("not " + s["const"].dump());
  if (s.contains("enum") &&
      std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
    fail(v.dump() + " not in " + s["enum"].dump());
  }
  if (s.contains("minimum") && v.is_number() && v < s["minimum"]) {
    fail("below minimum");
  }
  if (s.contains("maximum") && v.is_number() && v > s["maximum"]) {
    fail("above maximum");
  }
  if (s.contains("pattern") && v.is_string() &&
      !std::regex_search(v.get<std::string>(),
                         std::regex(s["pattern"].get<std::string>()))) {
    fail("does not match " + s["pattern"].get<std::string>());
  }
  if (v.is_object()) {
    for (const auto& key : s.value("required", Json::array())) {
      if (!v.contains(key))
        fail("missing required '" + key.get<std::string>() + "'");
    }
    const Json props = s.value("properties", Json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (props.contains(it.key())) {
        validate(it.value(), props[it.key()], where + "." + it.key(), errors);
      } else {
        fail("key '" + it.key() + "' is not in the schema");
      }
    }
  }
  if (v.is_array() && s.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i) {
      validate(v[i], s["items"], where + "[" + std::to_string(i) + "]", errors);
    }
  }
}

// Every property the schema names, as "a.b[].c" paths.
void schema_paths(const Json& s, const std::string& at,
                  std::set<std::string>* out) {
  if (s.contains("properties")) {
    for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
      out->insert(at + "." + it.key());
      schema_paths(it.value(), at + "." + it.key(), out);
    }
  }
  if (s.contains("items")) schema_paths(s["items"], at + "[]", out);
}

void document_paths(const Json& v, const std::string& at,
                    std::set<std::string>* out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      out->insert(at + "." + it.key());
      document_paths(it.value(), at + "." + it.key(), out);
    }
  } else if (v.is_array()) {
    for (const auto& e : v) document_paths(e, at + "[]", out);
  }
}

// A profile with every section and record kind filled.
Profile full_profile() {
  Profile p;
  p.run = {{"./a", "-x"}, "2024-05-01T12:00:00Z", 2.5, 0, 0, "perf", 1000000,
           "0.1.0"};
  p.settings = {true, "a.c:3", 25, false, 0.2, 7, "line"};
  p.scope = {{"MAIN"}, {"*"}};
  p.processes = {{42, "/bin/a", true}};
  p.processes[0].parent = 1;  // the process tree's fields (issue 15)
  p.processes[0].samples = 10;
  p.processes[0].experiments = 1;
  p.processes[0].cpu_s = 2.0;  // the profiler's cost (issue 11)
  p.processes[0].profiler_cpu_s = 0.01;
  p.threads = 2;
  p.samples = 10;
  p.frames = {{"f", "/src/a.c", 3, "/bin/a", false, true}};
  p.labels = {{"endpoint", "search"}};
  p.stacks = {{{0}, 6}, {{0}, 4, {0}}};
  p.points = {{"p", PointKind::kThroughput, 5, 0, 0},
              {"q", PointKind::kLatency, 0, 4, 3}};
  p.warnings = {"w"};
  Experiment e;
  e.file = "/src/a.c";
  e.line = 3;
  e.function = "f";
  e.speedup_pct = 25;
  e.duration_s = 0.2;
  e.delay_s = 0.01;
  e.cpu_s = 0.15;
  e.points = {{"p", PointKind::kThroughput, 5, 0, 0, 0, 0},
              {"q", PointKind::kLatency, 0, 4, 3, 1, 2}};
  p.experiments = {e};
  p.convergence = {"stable", 40,  3,   1,  "p", "/src/a.c:3",
                   0.5,      0.4, 0.6, 22, 0.05};
  p.traces = {{"f", true, {100, 250}, {{0, 250, 3}}}};
  return p;
}

TEST(ProfileSchema, WriterOutputValidates) {
  Json schema = load(ANDWEORC_PROFILE_SCHEMA);
  Json doc = Json::parse(dump_profile(full_profile()));
  std::vector<std::string> errors;
  validate(doc, schema, "$", &errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
}

TEST(ProfileSchema, SchemaNamesExactlyWhatTheWriterWrites) {
  Json schema = load(ANDWEORC_PROFILE_SCHEMA);
  std::set<std::string> in_schema, written;
  schema_paths(schema, "$", &in_schema);
  document_paths(Json::parse(dump_profile(full_profile())), "$", &written);
  EXPECT_EQ(in_schema, written);
}

TEST(ProfileSchema, ValidatorCatchesProblems) {
  Json schema = load(ANDWEORC_PROFILE_SCHEMA);
  Json doc = Json::parse(dump_profile(full_profile()));
  doc["version"] = "2.0";
  doc["counts"].erase("samples");
  doc["points"][0]["kind"] = "sometimes";
  std::vector<std::string> errors;
  validate(doc, schema, "$", &errors);
  EXPECT_EQ(errors.size(), 3u) << ::testing::PrintToString(errors);
}

}  // namespace
}  // namespace andweorc::profile
