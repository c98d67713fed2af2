// report_command.cc: `andweorc report FILE` re-prints a saved profile, in
// text, JSON or an export format, optionally for one label or per label.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/terminal.h"
#include "profile/atomic_file.h"
#include "profile/label_view.h"
#include "profile/profile_loader.h"
#include "profile/trace_view.h"
#include "report/folded_writer.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/pprof_writer.h"
#include "report/slow_calls.h"
#include "report/speedscope_writer.h"
#include "report/text_report.h"

namespace andweorc::cli {
namespace {

struct ReportOptions {
  std::string file;
  std::string format = "text";
  std::string output;
  size_t top = 10;
  std::vector<std::string> source_roots;
  std::string label;     // "key=value": only samples with this label
  std::string group_by;  // a label key: one section per value
  // --slower-than THRESHOLD [FUNCTION]: the slow calls of a traced function
  std::vector<std::string> slower_than;
};

// --slower-than: text is the slow-vs-fast report; folded and speedscope are
// the slow calls' stacks. Returns false (with the message printed) on bad
// input; *p becomes the slow calls' profile for the export formats.
bool slow_calls(const ReportOptions& o, profile::Profile* p,
                std::string* text) {
  std::string error;
  std::string name = o.slower_than.size() > 1 ? o.slower_than[1] : "";
  const profile::TracedFunction* t = profile::find_trace(*p, name, &error);
  std::optional<uint64_t> threshold;
  if (t != nullptr)
    threshold = profile::parse_threshold(*t, o.slower_than[0], &error);
  if (!threshold) {
    std::cerr << "andweorc: --slower-than: " << error << "\n";
    return false;
  }
  if (o.format == "text") {
    std::ostringstream out;
    report::write_slow_calls_text(*p, *t, *threshold, o.slower_than[0], o.top,
                                  out);
    *text = out.str();
    return true;
  }
  *p = profile::calls_profile(*p, *t, *threshold, true);
  return true;
}

bool to_stdout(const ReportOptions& o) {
  return o.output.empty() || o.output == "-";
}

// The text report, or with --group-by the whole report followed by the top
// lines and functions of each value of the key.
std::string text_report(const profile::Profile& p, const ReportOptions& o) {
  std::ostringstream out;
  report::TextOptions options;
  options.top = o.top;
  options.color = to_stdout(o) && use_color(1);
  options.source_roots = o.source_roots;
  report::write_text(p, out, options);
  if (o.group_by.empty()) return out.str();
  report::TextOptions group = options;
  group.sampling_only = true;
  for (const auto& g : profile::group_by_key(p, o.group_by)) {
    std::string name = g.has_label ? o.group_by + "=" + g.value
                                   : "(no " + o.group_by + " label)";
    double share = p.samples == 0
                       ? 0.0
                       : 100.0 * double(g.profile.samples) / double(p.samples);
    out << fmt::format("\n== {}: {} samples ({:.1f}%) ==\n", name,
                       g.profile.samples, share);
    report::write_text(g.profile, out, group);
  }
  return out.str();
}

std::string render(const profile::Profile& p, const ReportOptions& o) {
  std::ostringstream out;
  if (o.format == "json") {
    // The profile as data, plus the analysis tools would otherwise redo.
    report::JsonOptions options;
    options.include_analysis = true;
    options.source_roots = o.source_roots;
    report::write_json(p, out, options);
  } else if (o.format == "html") {
    report::HtmlOptions options;
    options.top = o.top;
    options.source_roots = o.source_roots;
    options.source_roots.push_back(".");
    report::write_html(p, out, options);
  } else if (o.format == "pprof") {
    return report::pprof_gzipped(p);
  } else if (o.format == "folded") {
    report::write_folded(p, out);
  } else if (o.format == "speedscope") {
    report::write_speedscope(p, out);
  } else {
    return text_report(p, o);
  }
  return out.str();
}

int run_report(const ReportOptions& o) {
  std::optional<profile::Label> selector;
  if (!o.label.empty()) {
    selector = profile::parse_label_selector(o.label);
    if (!selector) {
      std::cerr << "andweorc: --label must be KEY=VALUE, not '" << o.label
                << "'\n";
      return kExitUsage;
    }
  }
  if (!o.group_by.empty() && o.format != "text") {
    std::cerr << "andweorc: --group-by works with --format text; other "
                 "formats keep every label (pprof as sample labels)\n";
    return kExitUsage;
  }
  if (o.format == "html" && o.output.empty()) {
    // A page on a terminal helps no one: ask for a file (or "-" to pipe).
    std::cerr << "andweorc: --format html needs -o FILE (or -o - for "
                 "standard output)\n";
    return kExitUsage;
  }
  if (o.format == "pprof" && to_stdout(o)) {
    std::cerr << "andweorc: --format pprof writes binary data: give -o "
                 "FILE (e.g. -o profile.pb.gz)\n";
    return kExitUsage;
  }
  profile::ReadResult r = profile::load_profile(o.file);
  if (!r.ok()) {
    std::cerr << "andweorc: " << r.error << "\n";
    return kExitUsage;
  }
  profile::Profile p = selector
                           ? profile::filter_by_label(*r.profile, *selector)
                           : std::move(*r.profile);
  std::string text;
  if (!o.slower_than.empty()) {
    if (o.format != "text" && o.format != "folded" &&
        o.format != "speedscope") {
      std::cerr << "andweorc: --slower-than works with --format text, folded "
                   "or speedscope (the HTML and JSON reports carry every "
                   "traced function)\n";
      return kExitUsage;
    }
    if (!slow_calls(o, &p, &text)) return kExitUsage;
  }
  if (text.empty()) text = render(p, o);
  if (text.empty() && o.format == "pprof") {
    std::cerr << "andweorc: cannot compress the pprof profile\n";
    return kExitUsage;
  }
  if (to_stdout(o)) {
    std::cout << text;
    return kExitOk;
  }
  std::string error;
  if (!profile::write_file_atomic(o.output, text, &error)) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Print a saved profile");
  cmd->add_option(
         "FILE", o->file,
         "Profile written by 'andweorc run' (JSON) or Coz (profile.coz)")
      ->required();
  cmd->add_option("-f,--format", o->format,
                  "Output format: text, json, html (one self-contained page), "
                  "pprof (gzipped profile.proto), folded (flame-graph "
                  "stacks), speedscope")
      ->check(CLI::IsMember(
          {"text", "json", "html", "pprof", "folded", "speedscope"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Write to this file instead of standard output (html needs "
                  "it; - is standard output)");
  cmd->add_option("-n,--top", o->top, "Lines and functions to list")
      ->capture_default_str();
  cmd->add_option("--source-root", o->source_roots,
                  "Show files under DIR relative to it; html: also look for "
                  "source files under DIR (repeatable; the working directory "
                  "is always searched)")
      ->type_name("DIR");
  cmd->add_option("--label", o->label,
                  "Only samples that carried this label (KEY=VALUE)");
  cmd->add_option("--group-by", o->group_by,
                  "Top lines and functions per value of this label key");
  cmd->add_option("--slower-than", o->slower_than,
                  "With --trace profiles: the samples of the calls of a traced "
                  "function slower than THRESHOLD (p95, p99.9, or a duration: "
                  "2ms, 150us), beside its other calls' (text); folded and "
                  "speedscope: the slow calls' stacks. FUNCTION may be left "
                  "out when one function was traced")
      ->expected(1, 2)
      ->type_name("THRESHOLD [FUNCTION]");
  return [o] { return run_report(*o); };
}

}  // namespace andweorc::cli
