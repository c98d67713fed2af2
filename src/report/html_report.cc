// html_report.cc: the page around the data: head, embedded assets, scripts.
#include "report/html_report.h"

#include <string>

#include "experiments/analysis.h"
#include "report/display.h"
#include "report/html_assets.h"
#include "report/html_escape.h"

namespace andweorc::report {
namespace {

// No fetch, image, font or frame may come from anywhere: the report is one
// file that works offline. Only our four scripts may run, named by their
// hashes, so even markup that slipped into the page could not run an inline
// event handler or a script of its own. Styles cannot run code; uPlot sets
// inline styles, so they stay allowed.
std::string content_security_policy() {
  return "default-src 'none'; script-src 'sha256-" +
         std::string(kUplotJsSha256) + "' 'sha256-" +
         std::string(kDomJsSha256) + "' 'sha256-" +
         std::string(kFlameJsSha256) + "' 'sha256-" +
         std::string(kReportJsSha256) +
         "'; style-src 'unsafe-inline'; img-src data:";
}

void element(std::ostream& out, const char* open, std::string_view body,
             const char* close) {
  out << open << body << close << "\n";
}

}  // namespace

void write_html(const profile::Profile& p, std::ostream& out,
                const HtmlOptions& options) {
  nlohmann::ordered_json data = html_data(p, experiments::analyze(p), options);
  std::string title =
      "andweorc: " + data["meta"]["title"].get_ref<const std::string&>();
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
      << "<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, "
         "initial-scale=1\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\""
      << content_security_policy() << "\">\n"
      << "<title>" << escape_html(title) << "</title>\n";
  element(out, "<style>", kUplotCss, "</style>");
  element(out, "<style>", kFlameCss, "</style>");
  element(out, "<style>", kReportCss, "</style>");
  out << "</head>\n<body>\n"
      << "<noscript>This report draws its tables and plots with JavaScript: "
         "please allow scripts for this file.</noscript>\n"
      << "<main id=\"report\"></main>\n";
  element(out, "<script type=\"application/json\" id=\"andweorc-data\">",
          json_for_script(data), "</script>");
  element(out, "<script>", kUplotJs, "</script>");
  element(out, "<script>", kDomJs, "</script>");
  element(out, "<script>", kFlameJs, "</script>");
  element(out, "<script>", kReportJs, "</script>");
  out << "</body>\n</html>\n";
}

}  // namespace andweorc::report
