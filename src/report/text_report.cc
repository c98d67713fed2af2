// text_report.cc: the text report's sections: header, summary, warnings,
// progress points, causal profile, top lines/functions (the tables' layout
// is ranked_table.h's).
#include "report/text_report.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/analysis.h"
#include "profile/attribution.h"
#include "profile/derived_warnings.h"
#include "report/causal_section.h"
#include "report/display.h"
#include "report/label_section.h"
#include "report/process_section.h"
#include "report/ranked_table.h"
#include "report/slow_calls.h"
#include "report/source_paths.h"
#include "report/summary.h"

namespace andweorc::report {
namespace {

using profile::Attribution;
using profile::Profile;

constexpr size_t kMinWidth = 60;
constexpr std::string_view kIndent = "  ";

class Style {
 public:
  explicit Style(bool color) : color_(color) {}
  std::string heading(std::string_view s) const { return paint("1", s); }
  std::string warning(std::string_view s) const { return paint("33", s); }

 private:
  std::string paint(std::string_view code, std::string_view s) const {
    if (!color_) return std::string(s);
    return fmt::format("\033[{}m{}\033[0m", code, s);
  }
  bool color_;
};

// Everything the sections need, computed once.
struct Context {
  const Profile& p;
  const TextOptions& options;
  size_t width;
  Style style;
  Attribution attribution;
  SourcePaths paths;  // how file names are shown
};

std::string join(const std::vector<std::string>& v, std::string_view sep,
                 std::string_view if_empty) {
  if (v.empty()) return std::string(if_empty);
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string scope_text(const Profile& p) {
  return fmt::format("binaries: {}; sources: {}",
                     join(p.scope.binary, ", ", "(default)"),
                     join(p.scope.source, ", ", "any"));
}

std::string display_file(const Context& c, const std::string& file) {
  return c.paths.display(file);
}

std::string location(const Context& c, const profile::LineCount& l) {
  if (l.file.empty()) {
    return l.line > 0 ? fmt::format("?:{}", l.line) : "(no source)";
  }
  std::string f = display_file(c, l.file);
  return l.line > 0 ? fmt::format("{}:{}", f, l.line) : f + ":?";
}

std::string function_name(const std::string& f) {
  return f.empty() ? "(unknown)" : f;
}

size_t rows_to_show(const Context& c, size_t available) {
  if (c.options.top == 0) return available;
  return std::min(c.options.top, available);
}

// The label column of the header.
void header_line(std::ostream& out, std::string_view label,
                 std::string_view text) {
  out << kIndent << pad_right(label, 10) << "  " << text << "\n";
}

std::string exit_text(const Profile& p) {
  std::string how;
  if (p.run.exit_signal > 0) {
    const char* abbrev = sigabbrev_np(p.run.exit_signal);
    how = abbrev ? fmt::format("killed by signal {} (SIG{})", p.run.exit_signal,
                               abbrev)
                 : fmt::format("killed by signal {}", p.run.exit_signal);
  } else {
    how = fmt::format("status {}", p.run.exit_status);
  }
  if (p.run.duration_s > 0) {
    how += " after " + format_seconds(p.run.duration_s);
  }
  return how;
}

// The profiler's own threads' CPU time against the processes' (issue 11),
// "" when no process recorded it.
std::string profiler_cpu_text(const Profile& p) {
  double own = 0, all = 0;
  bool known = false;
  for (const profile::Process& pr : p.processes) {
    if (pr.cpu_s < 0 || pr.profiler_cpu_s < 0) continue;
    known = true;
    own += pr.profiler_cpu_s;
    all += pr.cpu_s;
  }
  if (!known || all <= 0) return "";
  auto cpu = [](double s) {
    return s < 1 ? fmt::format("{:.1f} ms", s * 1e3) : format_seconds(s);
  };
  return fmt::format("its threads used {} of CPU, {:.1f}% of the {} {}",
                     cpu(own), 100 * own / all,
                     p.processes.size() == 1 ? "process's" : "processes'",
                     cpu(all));
}

void write_header(const Context& c, std::ostream& out) {
  const Profile& p = c.p;
  const Attribution& a = c.attribution;
  std::string title = "andweorc profile";
  if (!p.run.command.empty()) {
    title += " of " + shell_join(p.run.command);
  }
  out << c.style.heading(fit_right(title, c.width)) << "\n";
  header_line(out, "exit", exit_text(p));
  header_line(out, "sampler", fit_right(sampler_text(p), c.width - 14));
  header_line(out, "samples",
              fmt::format("{} ({} lost)", format_count(p.samples),
                          format_count(p.lost_samples)));
  size_t np = p.processes.size();
  header_line(out, "threads",
              fmt::format("{} in {} process{}", format_count(p.threads),
                          format_count(np), np == 1 ? "" : "es"));
  if (std::string cost = profiler_cpu_text(p); !cost.empty())
    header_line(out, "profiler", fit_right(cost, c.width - 14));
  if (a.total == 0) {
    header_line(out, "mapped", "n/a (no samples)");
    header_line(out, "in scope", "n/a (no samples)");
  } else {
    header_line(
        out, "mapped",
        format_share(a.mapped_share()) + " of samples have a source line");
    header_line(out, "in scope",
                format_share(a.in_scope_share()) + " of samples");
  }
  header_line(out, "scope", fit_right(scope_text(p), c.width - 14));
  if (!c.paths.roots().empty()) {
    header_line(out, "files",
                fit_left("relative to " + c.paths.roots_text(), c.width - 14));
  }
}

// The answer in a few sentences (summary.h), before the details; only when
// the causal section follows (experiments ran or were asked for).
void write_summary(const Context& c, std::ostream& out) {
  if (c.p.experiments.empty() && !c.p.settings.enabled) return;
  experiments::Analysis a = experiments::analyze(c.p);  // `s` points into it
  Summary s = summarize(a, recorded_convergence(c.p));
  std::vector<std::string> sentences = summary_sentences(s, c.paths);
  if (sentences.empty()) return;
  out << "\n" << c.style.heading("Summary:") << "\n";
  for (const auto& sentence : sentences) {
    std::vector<std::string> lines = wrap(sentence, c.width - 4);
    for (size_t i = 0; i < lines.size(); ++i) {
      out << (i == 0 ? "  - " : "    ") << lines[i] << "\n";
    }
  }
}

void write_warnings(const Context& c, std::ostream& out) {
  std::vector<std::string> warnings = profile::all_warnings(c.p);
  if (warnings.empty()) return;
  out << "\n" << c.style.heading("Warnings:") << "\n";
  for (const auto& w : warnings) {
    std::vector<std::string> lines = wrap(w, c.width - 4);
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line = (i == 0 ? "  ! " : "    ") + lines[i];
      out << c.style.warning(line) << "\n";
    }
  }
}

std::string rate_text(double per_s) {
  if (per_s >= 100) {
    return format_count(static_cast<uint64_t>(std::llround(per_s))) + "/s";
  }
  return fmt::format("{:.1f}/s", per_s);
}

void write_points(const Context& c, std::ostream& out) {
  const Profile& p = c.p;
  out << "\n";
  if (p.points.empty()) {
    out << c.style.heading("Progress points:") << " none\n";
    for (const auto& l :
         wrap("Mark finished work with ANDWEORC_PROGRESS(\"name\") from "
              "<andweorc/andweorc.h> to measure throughput.",
              c.width - 2)) {
      out << kIndent << l << "\n";
    }
    return;
  }
  out << c.style.heading("Progress points:") << "\n";
  size_t name_w = 4;
  for (const auto& pt : p.points) {
    name_w = std::max(name_w, display_width(pt.name));
  }
  name_w = std::min<size_t>(name_w, 40);
  for (const auto& pt : p.points) {
    std::string counts;
    if (pt.kind == profile::PointKind::kThroughput) {
      counts = fmt::format("{} visit{}", format_count(pt.visits),
                           pt.visits == 1 ? "" : "s");
      if (p.run.duration_s > 0) {
        counts += fmt::format(
            " ({})",
            rate_text(static_cast<double>(pt.visits) / p.run.duration_s));
      }
    } else {
      counts = fmt::format("{} begin{}, {} end{}", format_count(pt.begins),
                           pt.begins == 1 ? "" : "s", format_count(pt.ends),
                           pt.ends == 1 ? "" : "s");
    }
    const char* kind =
        pt.kind == profile::PointKind::kThroughput ? "throughput" : "latency";
    out << kIndent << pad_right(fit_right(pt.name, name_w), name_w) << "  "
        << pad_right(kind, 10) << "  " << counts << "\n";
  }
}

void write_more(const Context& c, std::ostream& out, size_t shown,
                size_t total_rows, uint64_t shown_samples, const char* what) {
  if (shown >= total_rows) return;
  uint64_t rest = c.attribution.in_scope - shown_samples;
  size_t more = total_rows - shown;
  std::string text = fmt::format(
      "... {} more {}{} with {} of samples (raise --top to see them)",
      format_count(more), what, more == 1 ? "" : "s",
      format_share(c.attribution.share(rest)));
  for (const auto& l : wrap(text, c.width - 2)) out << kIndent << l << "\n";
}

void write_top_lines(const Context& c, std::ostream& out) {
  const Attribution& a = c.attribution;
  out << "\n";
  if (a.total == 0) {
    out << c.style.heading("Top lines:") << " none (no samples)\n";
    return;
  }
  if (a.in_scope == 0) {
    out << c.style.heading("Top lines:") << " none\n";
    std::string msg = fmt::format(
        "No sample fell in scope ({}). Fix: check --binary-scope and "
        "--source-scope, and build with -g so that samples map to source "
        "lines.",
        scope_text(c.p));
    for (const auto& l : wrap(msg, c.width - 2)) {
      out << c.style.warning(std::string(kIndent) + l) << "\n";
    }
    return;
  }
  out << c.style.heading(fmt::format("Top lines ({} of samples in scope):",
                                     format_share(a.in_scope_share())))
      << "\n";
  size_t n = rows_to_show(c, a.lines.size());
  std::vector<RankedRow> rows;
  uint64_t shown = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& l = a.lines[i];
    rows.push_back({a.share(l.samples), l.samples, location(c, l),
                    function_name(l.function)});
    shown += l.samples;
  }
  write_ranked_table(out, c.width, {0, 0, "location", "function"}, rows,
                     ColumnFit::kKeepEnd, ColumnFit::kFunction);
  write_more(c, out, n, a.lines.size(), shown, "line");
}

void write_top_functions(const Context& c, std::ostream& out) {
  const Attribution& a = c.attribution;
  if (a.in_scope == 0) return;
  out << "\n" << c.style.heading("Top functions:") << "\n";
  size_t n = rows_to_show(c, a.functions.size());
  std::vector<RankedRow> rows;
  uint64_t shown = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& f = a.functions[i];
    rows.push_back({a.share(f.samples), f.samples, function_name(f.function),
                    f.file.empty() ? "" : display_file(c, f.file)});
    shown += f.samples;
  }
  write_ranked_table(out, c.width, {0, 0, "function", "file"}, rows,
                     ColumnFit::kFunction, ColumnFit::kKeepEnd);
  write_more(c, out, n, a.functions.size(), shown, "function");
}

// Shown when experiments ran or were asked for; sampling-only runs skip it.
void write_causal_section(const Context& c, std::ostream& out) {
  if (c.p.experiments.empty() && !c.p.settings.enabled) return;
  CausalOptions o;
  o.width = c.width;
  o.top = c.options.top;
  o.paths = c.paths;
  o.heading = [&](std::string_view s) { return c.style.heading(s); };
  o.warning = [&](std::string_view s) { return c.style.warning(s); };
  write_causal(c.p, experiments::analyze(c.p), out, o);
}

// The files the report will show: the tables' and the causal section's.
std::vector<std::string> shown_files(const Profile& p, const Attribution& a,
                                     size_t top, bool with_causal) {
  std::vector<std::string> files;
  size_t nl = top == 0 ? a.lines.size() : std::min(top, a.lines.size());
  for (size_t i = 0; i < nl; ++i) files.push_back(a.lines[i].file);
  size_t nf = top == 0 ? a.functions.size() : std::min(top, a.functions.size());
  for (size_t i = 0; i < nf; ++i) files.push_back(a.functions[i].file);
  if (with_causal) {
    for (const auto& e : p.experiments) files.push_back(e.file);
  }
  return files;
}

}  // namespace

void write_text(const Profile& p, std::ostream& out,
                const TextOptions& options) {
  Context c{p,
            options,
            std::max(options.width, kMinWidth),
            Style(options.color),
            profile::attribute(p),
            {}};
  c.paths = SourcePaths(
      shown_files(p, c.attribution, options.top, !options.sampling_only),
      absolute_roots(options.source_roots));
  if (!options.sampling_only) {
    write_header(c, out);
    write_summary(c, out);
    write_warnings(c, out);
    write_points(c, out);
    write_causal_section(c, out);
    write_label_section(p, out, options.top, c.style.heading("Labels:"));
    write_process_section(p, out, options.top, c.width,
                          c.style.heading("Processes:"));
  }
  write_top_lines(c, out);
  write_top_functions(c, out);
  if (!options.sampling_only) write_trace_summary(p, out);
}

}  // namespace andweorc::report
