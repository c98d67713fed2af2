// html_assets.h: files the HTML report embeds, compiled into the tool.
//
// The definitions are generated at build time by cmake/embed_files.cmake
// from web/node_modules (uPlot, pinned by web/package-lock.json) and
// src/report/html/ (our page script and style), so the report needs no
// network and no file next to it.
#ifndef ANDWEORC_REPORT_HTML_ASSETS_H_
#define ANDWEORC_REPORT_HTML_ASSETS_H_

#include <string_view>

namespace andweorc::report {

extern const std::string_view kUplotJs;   // uPlot.iife.min.js
extern const std::string_view kUplotCss;  // uPlot.min.css
extern const std::string_view kDomJs;     // html/dom.js (also the live page's)
extern const std::string_view kFlameJs;  // html/flame.js (also the live page's)
extern const std::string_view kFlameCss;   // html/flame.css
extern const std::string_view kReportJs;   // html/report.js
extern const std::string_view kReportCss;  // html/report.css

// Base64 SHA-256 of each, for the page's Content-Security-Policy.
extern const std::string_view kUplotJsSha256;
extern const std::string_view kUplotCssSha256;
extern const std::string_view kDomJsSha256;
extern const std::string_view kFlameJsSha256;
extern const std::string_view kFlameCssSha256;
extern const std::string_view kReportJsSha256;
extern const std::string_view kReportCssSha256;

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_ASSETS_H_
