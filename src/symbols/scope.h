// scope.h: which frames count as "the program's own code".
//
// Binary scope: globs on module paths; the word MAIN stands for the process's
// main executable. Source scope: globs on source file paths; a glob starting
// with '!' excludes. A frame is in scope when its module matches a binary
// glob and its file matches some positive source glob and no negative one.
// Frames without a source line are never in scope: a line profiler cannot
// name a line for them.
#ifndef ANDWEORC_SYMBOLS_SCOPE_H_
#define ANDWEORC_SYMBOLS_SCOPE_H_

#include <string>
#include <vector>

namespace andweorc::symbols {

// Defaults like Coz: the main executable, minus system headers.
std::vector<std::string> default_binary_scope();
std::vector<std::string> default_source_scope();

class ScopeMatcher {
 public:
  ScopeMatcher(std::vector<std::string> binary,
               std::vector<std::string> source);
  bool binary_matches(const std::string& module,
                      const std::string& main_executable) const;
  bool source_matches(const std::string& file) const;
  // The source globs as one string: equal for matchers that select the
  // same sources (a cache key).
  std::string source_key() const;

 private:
  std::vector<std::string> binary_;
  std::vector<std::string> source_include_;
  std::vector<std::string> source_exclude_;
};

// Shell-style glob (fnmatch) against the whole path or, for globs without
// '/', against the basename.
bool glob_matches(const std::string& glob, const std::string& path);

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_SCOPE_H_
