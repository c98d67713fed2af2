// region_key.h: the one spelling of the region keys the planner, the
// coordinator and the analysis share: "line\tFILE\tLINE" and
// "function\tFUNCTION\tFILE" (FILE of a function: its first line's).
#ifndef ANDWEORC_PLANNER_REGION_KEY_H_
#define ANDWEORC_PLANNER_REGION_KEY_H_

#include <string>

namespace andweorc::planner {

inline std::string line_region_key(const std::string& file, int line) {
  return "line\t" + file + "\t" + std::to_string(line);
}

inline std::string function_region_key(const std::string& function,
                                       const std::string& file) {
  return "function\t" + function + "\t" + file;
}

inline bool is_function_region_key(const std::string& key) {
  return key.rfind("function\t", 0) == 0;
}

inline bool is_line_region_key(const std::string& key) {
  return key.rfind("line\t", 0) == 0;
}

// The two fields after the kind; false when the key does not have them.
inline bool region_key_fields(const std::string& key, std::string* first,
                              std::string* second) {
  size_t a = key.find('\t');
  size_t b = a == std::string::npos ? a : key.find('\t', a + 1);
  if (b == std::string::npos) return false;
  *first = key.substr(a + 1, b - a - 1);
  *second = key.substr(b + 1);
  return true;
}

// The FUNCTION and FILE of a function's key; false for any other key.
inline bool split_function_region_key(const std::string& key,
                                      std::string* function,
                                      std::string* file) {
  return is_function_region_key(key) && region_key_fields(key, function, file);
}

// How reports and the status line name a region: FILE:LINE, or the
// function; any other key (the tests' plain names) as it is.
inline std::string region_label(const std::string& key) {
  std::string first, second;
  if (!region_key_fields(key, &first, &second)) return key;
  return is_line_region_key(key) ? first + ":" + second : first;
}

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_REGION_KEY_H_
