// text_report.h: the human-readable report (`andweorc run`, `andweorc report`).
//
// Contract: write_text renders a validated Profile as plain text at most
// `width` columns wide (names that do not fit are shortened with "..."):
//   1. a header: command, exit, sampler and period, samples (lost), threads,
//      processes, the share of samples mapped to a source line, the share in
//      scope, the scope globs, and the directories that file names below are
//      relative to (file names are normalised and shown relative to a
//      source root as report/source_paths.h says);
//   2. warnings: profile.warnings, then derived ones, without duplicates;
//   3. progress points (or how to add one);
//   4. the causal profile (report/causal_section.h), when experiments ran or
//      the run asked for them (settings.enabled), at most `top` lines per
//      progress point;
//   5. labels (report/label_section.h), when samples carried any;
//   6. "Top lines" and "Top functions": in-scope samples attributed as in
//      profile/attribution.h, most first, at most `top` rows each (0 = all).
//      Shares are of all samples. With no sample in scope it says so, with
//      the fix, instead of the tables.
// The output is deterministic (no locale, no clock). With color on, headings
// are bold and warnings yellow (ANSI escapes); the text is otherwise equal.
#ifndef ANDWEORC_REPORT_TEXT_REPORT_H_
#define ANDWEORC_REPORT_TEXT_REPORT_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::report {

struct TextOptions {
  size_t top = 10;     // rows per table; 0 lists every row
  bool color = false;  // ANSI colors (for terminals)
  size_t width = 100;  // maximum line width in columns (at least 60 is used)
  // Only the "Top lines" and "Top functions" tables (one label group of
  // `andweorc report --group-by`).
  bool sampling_only = false;
  // Directories file names are shown relative to when they lie under one
  // (--source-root); otherwise the files' common directory is used.
  std::vector<std::string> source_roots = {};
};

void write_text(const profile::Profile& p, std::ostream& out,
                const TextOptions& options);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_TEXT_REPORT_H_
