// html_sources.cc: the page's source context (html_sources.h).
#include "report/html_sources.h"

namespace andweorc::report {

using OJson = nlohmann::ordered_json;

OJson HtmlSources::to_json(const HtmlOptions& options,
                           const SourcePaths& paths) const {
  OJson out = OJson::array();
  if (!options.read_sources) {
    for (const SourceRequest& r : requests_) {
      out.push_back(OJson{{"file", r.file},
                          {"file_display", paths.display(r.file)},
                          {"file_path", normalize_path(r.file)},
                          {"line", r.line},
                          {"found_as", nullptr},
                          {"first_line", 0},
                          {"lines", OJson::array()},
                          {"error", "source not read"}});
    }
    return out;
  }
  for (const SourceContext& c : read_source_contexts(
           requests_, options.context_lines, options.source_roots)) {
    out.push_back(OJson{
        {"file", c.file},
        {"file_display", paths.display(c.file)},
        {"file_path", normalize_path(c.file)},
        {"line", c.line},
        {"found_as", c.found_as.empty() ? OJson(nullptr)
                                        : OJson(normalize_path(c.found_as))},
        {"first_line", c.first_line},
        {"lines", c.lines},
        {"error", c.error.empty() ? OJson(nullptr) : OJson(c.error)}});
  }
  return out;
}

}  // namespace andweorc::report
