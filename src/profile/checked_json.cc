// checked_json.cc: checked JSON access (checked_json.h).
#include "profile/checked_json.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace andweorc::profile::checked_json {

std::string join(const std::string& where, std::string_view key) {
  if (where.empty()) return std::string(key);
  return fmt::format("{}.{}", where, key);
}

std::string at(const std::string& where, size_t i) {
  return fmt::format("{}[{}]", where, i);
}

// A short description of a JSON value for "must be X, not Y" messages.
std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default: {
      std::string text = v.dump();
      if (text.size() > 32) text = text.substr(0, 29) + "...";
      return "the number " + text;
    }
  }
}

[[noreturn]] void wrong_type(const std::string& path, const char* expected,
                             const Json& v) {
  throw Invalid{fmt::format("field '{}' must be {}, not {}", path, expected,
                            describe(v))};
}

const Json& field(const Json& obj, std::string_view key,
                  const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    throw Invalid{fmt::format("missing field '{}'", join(where, key))};
  }
  return *it;
}

const Json& get_object(const Json& obj, std::string_view key,
                       const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_object()) wrong_type(join(where, key), "an object", v);
  return v;
}

const Json& get_array(const Json& obj, std::string_view key,
                      const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_array()) wrong_type(join(where, key), "an array", v);
  return v;
}

const Json& as_object(const Json& v, const std::string& path) {
  if (!v.is_object()) wrong_type(path, "an object", v);
  return v;
}

std::string as_string(const Json& v, const std::string& path) {
  if (!v.is_string()) wrong_type(path, "a string", v);
  return v.get<std::string>();
}

std::string get_string(const Json& obj, std::string_view key,
                       const std::string& where) {
  return as_string(field(obj, key, where), join(where, key));
}

bool get_bool(const Json& obj, std::string_view key, const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_boolean()) wrong_type(join(where, key), "true or false", v);
  return v.get<bool>();
}

uint64_t as_u64(const Json& v, const std::string& path) {
  // nlohmann stores every non-negative integer literal as unsigned.
  if (!v.is_number_unsigned()) wrong_type(path, "a non-negative integer", v);
  return v.get<uint64_t>();
}

uint64_t get_u64(const Json& obj, std::string_view key,
                 const std::string& where) {
  return as_u64(field(obj, key, where), join(where, key));
}

int get_int(const Json& obj, std::string_view key, const std::string& where,
            int lo, int hi) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number_integer()) wrong_type(path, "an integer", v);
  bool ok = v.is_number_unsigned()
                ? v.get<uint64_t>() <= static_cast<uint64_t>(hi)
                : (v.get<int64_t>() >= lo && v.get<int64_t>() <= hi);
  if (!ok) {
    throw Invalid{fmt::format("field '{}' must be between {} and {}, not {}",
                              path, lo, hi, v.dump())};
  }
  return static_cast<int>(v.get<int64_t>());
}

int64_t get_i64(const Json& obj, std::string_view key,
                const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number_integer()) wrong_type(path, "an integer", v);
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw Invalid{fmt::format("field '{}' is too large: {}", path, v.dump())};
  }
  return v.get<int64_t>();
}

double get_seconds(const Json& obj, std::string_view key,
                   const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number()) wrong_type(path, "a number", v);
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) {
    throw Invalid{fmt::format(
        "field '{}' must be a non-negative number, not {}", path, v.dump())};
  }
  return d;
}

double get_number(const Json& obj, std::string_view key,
                  const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number()) wrong_type(path, "a number", v);
  double d = v.get<double>();
  if (!std::isfinite(d))
    throw Invalid{fmt::format("field '{}' must be finite", path)};
  return d;
}

std::vector<std::string> get_strings(const Json& obj, std::string_view key,
                                     const std::string& where) {
  const Json& a = get_array(obj, key, where);
  std::string path = join(where, key);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(as_string(a[i], at(path, i)));
  return out;
}

// "MAJOR.MINOR" with decimal digits only.
bool parse_version(const std::string& s, int* major, int* minor) {
  size_t dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  auto r1 = std::from_chars(b, b + dot, *major);
  if (r1.ec != std::errc() || r1.ptr != b + dot) return false;
  auto r2 = std::from_chars(b + dot + 1, e, *minor);
  return r2.ec == std::errc() && r2.ptr == e && *major >= 0 && *minor >= 0;
}

// Quoted and shortened, for echoing a bad value in a message.
std::string shown(const std::string& s) {
  std::string q = Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  if (q.size() > 42) q = q.substr(0, 38) + "...\"";
  return q;
}

}  // namespace andweorc::profile::checked_json
