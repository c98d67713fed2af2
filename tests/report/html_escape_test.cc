// html_escape_test.cc: hostile strings stay inert in HTML text and in JSON
// embedded in a script element, and the JSON reads back unchanged.
#include "report/html_escape.h"

#include <gtest/gtest.h>

#include <string>

#include "report/html_assets.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;

const std::string kHostileText =
    "</script><img src=x onerror=\"alert(1)\">&amp; <!-- '\xE2\x80\xA8\xE2"
    "\x80\xA9";

TEST(EscapeHtml, ReplacesEveryMarkupCharacter) {
  EXPECT_EQ(escape_html("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  std::string e = escape_html(kHostileText);
  EXPECT_EQ(e.find('<'), std::string::npos);
  EXPECT_EQ(e.find('>'), std::string::npos);
  EXPECT_EQ(e.find('"'), std::string::npos);
  EXPECT_EQ(escape_html("plain text"), "plain text");
}

TEST(JsonForScript, NoCharacterThatCouldEndTheElement) {
  OJson j = {{"function", kHostileText},
             {kHostileText, {kHostileText, 1, nullptr}}};
  std::string text = json_for_script(j);
  for (char c : {'<', '>', '&'}) {
    EXPECT_EQ(text.find(c), std::string::npos) << c;
  }
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(text.find("\xE2\x80\xA9"), std::string::npos);
  EXPECT_NE(text.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(text.find("\\u2028\\u2029"), std::string::npos);
}

TEST(JsonForScript, ReadsBackAsTheSameValue) {
  OJson j = {{"function", kHostileText},
             {"nested", {{"lines", {kHostileText, "int x = a < b && c > d;"}}}},
             {"number", 0.125},
             {"null", nullptr}};
  EXPECT_EQ(OJson::parse(json_for_script(j)), j);
}

TEST(JsonForScript, InvalidUtf8BecomesReplacementCharacters) {
  OJson j = {{"file", std::string("bad\xFF\xFEname.c")}};
  OJson back = OJson::parse(json_for_script(j));
  EXPECT_EQ(back["file"], "bad\xEF\xBF\xBD\xEF\xBF\xBDname.c");
}

TEST(ScriptSafe, FindsElementEndsInAnyCase) {
  EXPECT_TRUE(script_safe("var a = 1 < 2 && b > c;"));
  EXPECT_FALSE(script_safe("x = '</ScRiPt>'"));
  EXPECT_FALSE(script_safe("a { } </STYLE"));
  EXPECT_FALSE(script_safe("<!-- x"));
}

TEST(ScriptSafe, EmbeddedAssetsAreSafe) {
  // The build refuses unsafe assets; this checks what was compiled in.
  for (std::string_view asset : {kUplotJs, kUplotCss, kReportJs, kReportCss}) {
    EXPECT_GT(asset.size(), 1000u);
    EXPECT_TRUE(script_safe(asset));
  }
  EXPECT_TRUE(script_safe(kDomJs));  // small, shared with the live page
}

}  // namespace
}  // namespace andweorc::report
