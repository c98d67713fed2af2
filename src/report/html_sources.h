// html_sources.h: the source lines the HTML page shows, requested by the
// causal and sampling rows and read once each (internal to report/).
#ifndef ANDWEORC_REPORT_HTML_SOURCES_H_
#define ANDWEORC_REPORT_HTML_SOURCES_H_

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/html_data.h"
#include "report/source_context.h"
#include "report/source_paths.h"

namespace andweorc::report {

// Source requests, deduplicated; rows refer to them by index ("source").
class HtmlSources {
 public:
  size_t add(const std::string& file, int line) {
    auto [it, added] = index_.try_emplace({file, line}, requests_.size());
    if (added) requests_.push_back({file, line});
    return it->second;
  }

  // One entry per request, in request order: {file, file_display,
  // file_path, line, found_as, first_line, lines, error}, the files read
  // (source_context.h) unless options.read_sources is false.
  nlohmann::ordered_json to_json(const HtmlOptions& options,
                                 const SourcePaths& paths) const;

 private:
  std::map<std::pair<std::string, int>, size_t> index_;
  std::vector<SourceRequest> requests_;
};

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_SOURCES_H_
