// html_escape.h: putting untrusted strings into an HTML page safely.
//
// Contract (pure functions, no I/O):
//  - escape_html: text for an element's content or a quoted attribute
//    value; & < > " ' become character references.
//  - json_for_script: JSON text for the body of a
//    <script type="application/json"> element. It is j.dump() with invalid
//    UTF-8 replaced by U+FFFD, and with <, >, & and U+2028/U+2029 written as
//    \uXXXX escapes: these only occur inside JSON strings, where the escape
//    means the same character, so JSON.parse gives back the same value, and
//    no "</script>" or "<!--" can end or alter the element.
//  - script_safe: whether `text` can be the body of a <script> or <style>
//    element as it is (no "</script", "</style" or "<!--", any case).
#ifndef ANDWEORC_REPORT_HTML_ESCAPE_H_
#define ANDWEORC_REPORT_HTML_ESCAPE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace andweorc::report {

std::string escape_html(std::string_view text);

std::string json_for_script(const nlohmann::ordered_json& j);

bool script_safe(std::string_view text);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_ESCAPE_H_
