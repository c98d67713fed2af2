// html_report.cc: the page around the data: head, embedded assets, scripts.
#include "report/html_report.h"

#include "experiments/analysis.h"
#include "report/display.h"
#include "report/html_assets.h"
#include "report/html_escape.h"

namespace andweorc::report {
namespace {

// No fetch, image, font or frame may come from anywhere: the report is one
// file that works offline. Inline scripts and styles are the page itself.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; img-src data:";

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
      << kContentSecurityPolicy << "\">\n"
      << "<title>" << escape_html(title) << "</title>\n";
  element(out, "<style>", kUplotCss, "</style>");
  element(out, "<style>", kReportCss, "</style>");
  out << "</head>\n<body>\n"
      << "<noscript>This report draws its tables and plots with JavaScript: "
         "please allow scripts for this file.</noscript>\n"
      << "<main id=\"report\"></main>\n";
  element(out, "<script type=\"application/json\" id=\"andweorc-data\">",
          json_for_script(data), "</script>");
  element(out, "<script>", kUplotJs, "</script>");
  element(out, "<script>", kReportJs, "</script>");
  out << "</body>\n</html>\n";
}

}  // namespace andweorc::report
