// report_command.cc: `andweorc report FILE` re-prints a saved profile.
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/terminal.h"
#include "profile/atomic_file.h"
#include "profile/profile_loader.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace andweorc::cli {
namespace {

struct ReportOptions {
  std::string file;
  std::string format = "text";
  std::string output;
  size_t top = 10;
};

int run_report(const ReportOptions& o) {
  profile::ReadResult r = profile::load_profile(o.file);
  if (!r.ok()) {
    std::cerr << "andweorc: " << r.error << "\n";
    return kExitUsage;
  }
  std::string text;
  if (o.format == "json") {
    // The profile as data, plus the analysis tools would otherwise redo.
    std::ostringstream out;
    report::JsonOptions options;
    options.include_analysis = true;
    report::write_json(*r.profile, out, options);
    text = out.str();
  } else {
    std::ostringstream out;
    report::TextOptions options;
    options.top = o.top;
    options.color = (o.output.empty() || o.output == "-") && use_color(1);
    report::write_text(*r.profile, out, options);
    text = out.str();
  }
  if (o.output.empty() || o.output == "-") {
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
  cmd->add_option("-f,--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Write to this file instead of standard output");
  cmd->add_option("-n,--top", o->top, "Lines and functions to list")
      ->capture_default_str();
  return [o] { return run_report(*o); };
}

}  // namespace andweorc::cli
