// html_report_test.cc: the HTML report is one self-contained page whose
// embedded data reads back, in which hostile strings stay inert, and which
// renders profiles without experiments.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>

#include "causal_fixtures.h"
#include "experiments/analysis.h"
#include "report/html_assets.h"
#include "report/html_data.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;

const std::string kHostile =
    "evil</script><img src=x onerror=\"alert(1)\"><!-- \xE2\x80\xA8";
constexpr std::string_view kDataOpen =
    "<script type=\"application/json\" id=\"andweorc-data\">";

// The causal fixture with a hostile function, command word and warning.
profile::Profile hostile_profile() {
  profile::Profile p = testing::causal_profile();
  p.frames[0].function = kHostile;
  for (auto& e : p.experiments) {
    if (e.function == "hash_bytes") e.function = kHostile;
  }
  p.run.command.push_back(kHostile);
  p.warnings.push_back(kHostile);
  return p;
}

HtmlOptions no_files() {
  HtmlOptions o;
  o.read_sources = false;
  return o;
}

std::string page(const profile::Profile& p) {
  std::ostringstream out;
  write_html(p, out, no_files());
  return out.str();
}

size_t count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return s;
}

OJson embedded_data(const std::string& html) {
  size_t open = html.find(kDataOpen);
  EXPECT_NE(open, std::string::npos);
  size_t start = open + kDataOpen.size();
  size_t end = html.find("</script>", start);
  return OJson::parse(html.substr(start, end - start));
}

TEST(HtmlReport, EmbedsTheLibraryAndTheData) {
  profile::Profile p = hostile_profile();
  std::string html = page(p);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (std::string_view asset :
       {kUplotJs, kUplotCss, kDomJs, kReportJs, kReportCss}) {
    EXPECT_NE(html.find(asset), std::string::npos);
  }
  EXPECT_NE(kUplotJs.find("uPlot"), std::string_view::npos);
  // The data reads back as exactly what html_data computed.
  EXPECT_EQ(embedded_data(html),
            html_data(p, experiments::analyze(p), no_files()));
}

TEST(HtmlReport, HostileStringsCannotEndAnElement) {
  std::string html = page(hostile_profile());
  // Five script elements (data, uPlot, shared helpers, flame graph, page
  // script), each closed once.
  EXPECT_EQ(count(lower(html), "</script"), 5u);
  EXPECT_EQ(count(lower(html), "<script"), 5u);
  EXPECT_EQ(count(lower(html), "<img"), 0u);
  EXPECT_EQ(html.find(kHostile), std::string::npos);
  EXPECT_EQ(count(html, "<!--"), 0u);
  // The title holds the command, escaped.
  size_t title = html.find("<title>andweorc: ./server --threads 4 ");
  ASSERT_NE(title, std::string::npos);
  size_t title_end = html.find("</title>", title);
  EXPECT_NE(html.substr(title, title_end - title)
                .find("evil&lt;/script&gt;&lt;img src=x "
                      "onerror=&quot;alert(1)&quot;&gt;"),
            std::string::npos);
  OJson data = embedded_data(html);
  EXPECT_EQ(data["causal"]["points"][1]["lines"][0]["function"], kHostile);
  EXPECT_EQ(data["warnings"].back(), kHostile);
}

// The first attribute or CSS url() whose value leaves the file, or "".
std::string external_reference(const std::string& html) {
  for (std::string_view opener :
       {"src=", "href=", "action=", "poster=", "url(", "@import"}) {
    for (size_t at = html.find(opener); at != std::string::npos;
         at = html.find(opener, at + 1)) {
      if (opener == "@import") return "@import";
      size_t v = at + opener.size();
      while (v < html.size() &&
             (html[v] == ' ' || html[v] == '"' || html[v] == '\'')) {
        ++v;
      }
      std::string_view value = std::string_view(html).substr(v, 8);
      if (value.starts_with("//") || value.starts_with("http:") ||
          value.starts_with("https:")) {
        return html.substr(at, 40);
      }
    }
  }
  return "";
}

TEST(HtmlReport, ReferencesNoExternalResource) {
  EXPECT_EQ(external_reference("<img src= 'https://x/y.png'>"),
            "src= 'https://x/y.png'>");
  EXPECT_EQ(external_reference("a { background: url(//cdn/x) }"),
            "url(//cdn/x) }");
  std::string html = lower(page(hostile_profile()));
  EXPECT_EQ(external_reference(html), "");
  // And the browser is told to refuse any request the page might make.
  EXPECT_NE(html.find("http-equiv=\"content-security-policy\" "
                      "content=\"default-src 'none';"),
            std::string::npos);
}

TEST(HtmlReport, OnlyTheEmbeddedScriptsMayRun) {
  std::string html = page(hostile_profile());
  std::string policy = "script-src 'sha256-" + std::string(kUplotJsSha256) +
                       "' 'sha256-" + std::string(kDomJsSha256) + "' 'sha256-" +
                       std::string(kFlameJsSha256) + "' 'sha256-" +
                       std::string(kReportJsSha256) + "';";
  EXPECT_NE(html.find(policy), std::string::npos);
  EXPECT_EQ(kUplotJsSha256.size(), 44u);  // base64 of 32 bytes
  EXPECT_NE(kUplotJsSha256, kReportJsSha256);
  EXPECT_NE(kDomJsSha256, kReportJsSha256);
}

TEST(HtmlData, LinesCarryTheirExperimentsAndCurve) {
  profile::Profile p = testing::causal_profile();
  experiments::Analysis a = experiments::analyze(p);
  OJson data = html_data(p, a, no_files());
  ASSERT_EQ(data["causal"]["points"].size(), 2u);
  const OJson& point = data["causal"]["points"][1];
  EXPECT_EQ(point["name"], "requests");
  const OJson& top = point["lines"][0];
  EXPECT_EQ(top["file"], "/home/dev/proj/src/hash.c");
  EXPECT_EQ(top["line"], 17);
  EXPECT_DOUBLE_EQ(top["sample_share"].get<double>(), 0.6);
  const experiments::LineImpact* m = nullptr;
  for (const auto& i : a.impacts) {
    if (i.point == "requests" && i.line == 17) m = &i;
  }
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(top["points"].size(), m->points.size());
  for (size_t i = 0; i < m->points.size(); ++i) {
    const OJson& pt = top["points"][i];
    EXPECT_EQ(pt[0], m->points[i].x);
    EXPECT_EQ(pt[1], m->points[i].y);
    EXPECT_EQ(pt[2], m->points[i].experiment);
    EXPECT_EQ(pt[6], true);  // its own 0% runs
  }
  // The curve is the fit, with predict()'s interval around it.
  const OJson& curve = top["curve"];
  ASSERT_EQ(curve.size(), 21u);
  EXPECT_EQ(curve[0][0], 0.0);
  EXPECT_NEAR(curve[0][1].get<double>(), m->intercept, 1e-12);
  EXPECT_NEAR(curve[20][0].get<double>(), 0.75, 1e-12);
  experiments::Prediction r = experiments::predict(*m, 0.75);
  EXPECT_NEAR(curve[20][1].get<double>(), m->intercept + r.value, 1e-12);
  EXPECT_NEAR(curve[20][2].get<double>(), m->intercept + r.low, 1e-12);
  EXPECT_NEAR(curve[20][3].get<double>(), m->intercept + r.high, 1e-12);
  EXPECT_TRUE(data["causal"]["no_curves"].is_null());
}

TEST(HtmlData, SamplingOnlyProfileSaysWhyThereAreNoCurves) {
  profile::Profile p = testing::causal_profile();
  p.experiments.clear();
  p.settings.enabled = false;
  std::string html = page(p);
  OJson data = embedded_data(html);
  EXPECT_TRUE(data["causal"]["points"].empty());
  std::string why = data["causal"]["no_curves"];
  EXPECT_NE(why.find("--no-experiments"), std::string::npos) << why;
  ASSERT_EQ(data["sampling"]["lines"].size(), 3u);
  EXPECT_EQ(data["sampling"]["lines"][0]["file"], "/home/dev/proj/src/hash.c");
  EXPECT_EQ(data["sampling"]["functions"][0]["samples"], 600);
  EXPECT_NE(html.find(kReportJs), std::string::npos);
  // No causal answer: the summary names the busiest function instead.
  EXPECT_TRUE(data["summary"]["points"].empty());
  EXPECT_EQ(data["summary"]["busiest_function"]["function"], "hash_bytes");
  EXPECT_EQ(data["summary"]["busiest_function"]["file_display"], "hash.c");
  EXPECT_DOUBLE_EQ(data["summary"]["busiest_function"]["share"].get<double>(),
                   0.6);
}

TEST(HtmlData, ExperimentsThatNeverFinishedAreExplained) {
  profile::Profile p = testing::causal_profile();
  p.experiments.clear();  // asked for, none finished
  OJson data = html_data(p, experiments::analyze(p), no_files());
  std::string why = data["causal"]["no_curves"];
  EXPECT_NE(why.find("No experiment finished"), std::string::npos) << why;
}

TEST(HtmlData, SourcesAreReferencedOnceEach) {
  profile::Profile p = testing::causal_profile();
  OJson data = html_data(p, experiments::analyze(p), no_files());
  // hash.c:17 appears in both points and in the sampling table: one entry.
  size_t hash = 0;
  for (const auto& s : data["sources"]) hash += s["line"] == 17;
  EXPECT_EQ(hash, 1u);
  size_t index = data["causal"]["points"][0]["lines"][0]["source"];
  EXPECT_EQ(data["sources"][index]["file"], "/home/dev/proj/src/hash.c");
  EXPECT_EQ(data["sources"][index]["error"], "source not read");
  EXPECT_EQ(data["source_roots"], OJson::array({"/home/dev/proj/src/"}));
}

// The causal fixture with paths as a build records them ("//" where the
// compilation directory and the file name meet, ".." from a subdirectory)
// and a second line of hash_bytes.
profile::Profile long_paths_profile() {
  profile::Profile p = testing::causal_profile();
  const std::string from = "/home/dev/proj/src/";
  const std::string to = "/home/ci/libzstd-1.5.4+dfsg2//programs/../lib/";
  auto move = [&](std::string& f) {
    if (f.rfind(from, 0) == 0) f = to + f.substr(from.size());
  };
  for (auto& f : p.frames) move(f.file);
  for (auto& e : p.experiments) move(e.file);
  const std::string h = to + "hash.c";
  for (int pct : {0, 0, 25, 50, 75}) {
    p.experiments.push_back(testing::exp(h, 18, "hash_bytes", pct, 0.5,
                                         500 + static_cast<uint64_t>(pct)));
  }
  return p;
}

TEST(HtmlData, PathsAreNormalisedAndRelativeWithTheFullPathKept) {
  profile::Profile p = long_paths_profile();
  OJson data = html_data(p, experiments::analyze(p), no_files());
  EXPECT_EQ(data["source_roots"],
            OJson::array({"/home/ci/libzstd-1.5.4+dfsg2/lib/"}));
  const OJson& line = data["causal"]["points"][1]["lines"][0];
  EXPECT_EQ(line["file"],
            "/home/ci/libzstd-1.5.4+dfsg2//programs/../lib/hash.c");
  EXPECT_EQ(line["file_display"], "hash.c");
  EXPECT_EQ(line["file_path"], "/home/ci/libzstd-1.5.4+dfsg2/lib/hash.c");
  EXPECT_EQ(data["sampling"]["lines"][0]["file_display"], "hash.c");
  EXPECT_EQ(data["sampling"]["functions"][0]["file_display"], "hash.c");
  EXPECT_EQ(data["sources"][0]["file_display"], "hash.c");
  // Nothing the page shows carries a "//" or a "..".
  for (const char* key : {"file_display", "file_path"}) {
    std::string all = data.dump();
    for (size_t at = all.find(key); at != std::string::npos;
         at = all.find(key, at + 1)) {
      size_t start = all.find(':', at) + 2;
      std::string value = all.substr(start, all.find('"', start) - start);
      EXPECT_EQ(value.find("//"), std::string::npos) << value;
      EXPECT_EQ(value.find(".."), std::string::npos) << value;
    }
  }
}

TEST(HtmlData, SourceRootsTheUserNamedComeFirst) {
  profile::Profile p = long_paths_profile();
  HtmlOptions o = no_files();
  o.source_roots = {"/home/ci/libzstd-1.5.4+dfsg2/", "."};
  OJson data = html_data(p, experiments::analyze(p), o);
  EXPECT_EQ(data["source_roots"],
            OJson::array({"/home/ci/libzstd-1.5.4+dfsg2/"}));
  EXPECT_EQ(data["causal"]["points"][1]["lines"][0]["file_display"],
            "lib/hash.c");
}

TEST(HtmlData, LinesAreGroupedUnderTheirFunction) {
  profile::Profile p = long_paths_profile();
  OJson data = html_data(p, experiments::analyze(p), no_files());
  const OJson& point = data["causal"]["points"][1];
  ASSERT_EQ(point["name"], "requests");
  const OJson& groups = point["groups"];
  // hash_bytes (2 lines), lookup, handle_request, write_log.
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0]["function"], "hash_bytes");
  EXPECT_EQ(groups[0]["rank"], 1);
  ASSERT_EQ(groups[0]["lines"].size(), 2u);
  size_t covered = 0;
  int previous_rank = 0;
  for (const auto& g : groups) {
    EXPECT_GT(g["rank"].get<int>(), previous_rank);  // by best rank
    previous_rank = g["rank"];
    for (const auto& i : g["lines"]) {
      EXPECT_EQ(point["lines"][i.get<size_t>()]["function"], g["function"]);
      ++covered;
    }
    const OJson& best = point["lines"][g["best"].get<size_t>()];
    EXPECT_EQ(best["rank"], g["rank"]);
  }
  EXPECT_EQ(covered, point["lines"].size());  // every line in one group
  // The function's share: hash_bytes is the leaf of 600 of 1000 samples.
  EXPECT_DOUBLE_EQ(groups[0]["sample_share"].get<double>(), 0.6);
}

TEST(HtmlData, SummaryNamesTheTopRegionFirst) {
  profile::Profile p = long_paths_profile();
  OJson data = html_data(p, experiments::analyze(p), no_files());
  EXPECT_EQ(data.begin().key(), "summary");
  const OJson& s = data["summary"];
  ASSERT_EQ(s["points"].size(), 2u);
  const OJson& req = s["points"][1];
  EXPECT_EQ(req["name"], "requests");
  EXPECT_EQ(req["regions"], 5);
  EXPECT_EQ(req["top"]["function"], "hash_bytes");
  EXPECT_EQ(req["top"]["file_display"], "hash.c");
  EXPECT_NEAR(req["top"]["at10"][0].get<double>(),
              req["top"]["impact"].get<double>() * 0.1, 1e-12);
  // The profile does not record convergence: no clause to show.
  EXPECT_TRUE(s["convergence"].is_null());
}

TEST(HtmlData, LongFunctionNamesGetAShortForm) {
  profile::Profile p = testing::causal_profile();
  const std::string name =
      "std::_Hashtable<std::__cxx11::basic_string<char>, std::pair<const "
      "std::__cxx11::basic_string<char>, int>>::_M_find_before_node(unsigned "
      "long, std::__cxx11::basic_string<char> const&, unsigned long) const";
  p.frames[0].function = name;
  for (auto& e : p.experiments) {
    if (e.function == "hash_bytes") e.function = name;
  }
  OJson data = html_data(p, experiments::analyze(p), no_files());
  const OJson& line = data["causal"]["points"][1]["lines"][0];
  EXPECT_EQ(line["function"], name);
  EXPECT_EQ(line["function_short"],
            "std::_Hashtable<...>::_M_find_before_node(...) const");
}

}  // namespace
}  // namespace andweorc::report
