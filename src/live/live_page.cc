// live_page.cc: see live_page.h.
#include "live/live_page.h"

#include "live/live_assets.h"
#include "report/html_assets.h"
#include "report/html_escape.h"

namespace andweorc::live {
namespace {

// As the report's: only our four scripts may run (named by their hashes);
// the page may fetch from its own origin only (the state it polls).
std::string content_security_policy() {
  return "default-src 'none'; connect-src 'self'; script-src 'sha256-" +
         std::string(report::kUplotJsSha256) + "' 'sha256-" +
         std::string(report::kDomJsSha256) + "' 'sha256-" +
         std::string(report::kFlameJsSha256) + "' 'sha256-" +
         std::string(kLiveJsSha256) +
         "'; style-src 'unsafe-inline'; img-src data:";
}

}  // namespace

std::string live_page(const std::string& title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" "
      "content=\"" +
      content_security_policy() +
      "\">\n<title>andweorc live: " + report::escape_html(title) + "</title>\n";
  out += "<style>" + std::string(report::kUplotCss) + "</style>\n";
  out += "<style>" + std::string(report::kFlameCss) + "</style>\n";
  out += "<style>" + std::string(kLiveCss) + "</style>\n";
  out +=
      "</head>\n<body>\n<noscript>This page draws its tables and plots "
      "with JavaScript: please allow scripts for it.</noscript>\n"
      "<main id=\"live\"><h1>andweorc live: " +
      report::escape_html(title) + "</h1></main>\n";
  out += "<script>" + std::string(report::kUplotJs) + "</script>\n";
  out += "<script>" + std::string(report::kDomJs) + "</script>\n";
  out += "<script>" + std::string(report::kFlameJs) + "</script>\n";
  out += "<script>" + std::string(kLiveJs) + "</script>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace andweorc::live
