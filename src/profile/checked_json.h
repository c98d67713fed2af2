// checked_json.h: reading JSON with every access checked, for the profile
// reader: a missing field, a wrong type or a value out of range throws
// Invalid with a message that names the field by its path ("run.samples",
// "frames[3].line"), so a reader is a list of get_* calls and the caller
// turns Invalid into its one-line error.
//
// Contract: every function throws only Invalid (or std::bad_alloc); `where`
// is the path of `obj` ("" at the top level), `path` the path of `v`.
#ifndef ANDWEORC_PROFILE_CHECKED_JSON_H_
#define ANDWEORC_PROFILE_CHECKED_JSON_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace andweorc::profile::checked_json {

using Json = nlohmann::json;

// A validation failure; `message` is the part after "NAME: ".
struct Invalid {
  std::string message;
};

std::string join(const std::string& where, std::string_view key);

std::string at(const std::string& where, size_t i);

// A short description of a JSON value for "must be X, not Y" messages.
std::string describe(const Json& v);

[[noreturn]] void wrong_type(const std::string& path, const char* expected,
                             const Json& v);

const Json& field(const Json& obj, std::string_view key,
                  const std::string& where);

const Json& get_object(const Json& obj, std::string_view key,
                       const std::string& where);

const Json& get_array(const Json& obj, std::string_view key,
                      const std::string& where);

const Json& as_object(const Json& v, const std::string& path);

std::string as_string(const Json& v, const std::string& path);

std::string get_string(const Json& obj, std::string_view key,
                       const std::string& where);

bool get_bool(const Json& obj, std::string_view key, const std::string& where);

uint64_t as_u64(const Json& v, const std::string& path);

uint64_t get_u64(const Json& obj, std::string_view key,
                 const std::string& where);

int get_int(const Json& obj, std::string_view key, const std::string& where,
            int lo, int hi);

int64_t get_i64(const Json& obj, std::string_view key,
                const std::string& where);

double get_seconds(const Json& obj, std::string_view key,
                   const std::string& where);

double get_number(const Json& obj, std::string_view key,
                  const std::string& where);

std::vector<std::string> get_strings(const Json& obj, std::string_view key,
                                     const std::string& where);

// "MAJOR.MINOR" with decimal digits only.
bool parse_version(const std::string& s, int* major, int* minor);

// Quoted and shortened, for echoing a bad value in a message.
std::string shown(const std::string& s);

}  // namespace andweorc::profile::checked_json

#endif  // ANDWEORC_PROFILE_CHECKED_JSON_H_
