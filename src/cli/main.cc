// main.cc: `andweorc` — the causal profiler's command-line tool.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"

#ifndef ANDWEORC_VERSION
#define ANDWEORC_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using andweorc::cli::add_attach_command;
  using andweorc::cli::add_diff_command;
  using andweorc::cli::add_merge_command;
  using andweorc::cli::add_report_command;
  using andweorc::cli::add_run_command;
  using andweorc::cli::add_status_command;
  using andweorc::cli::add_stop_command;
  using andweorc::cli::CommandRunner;
  using andweorc::cli::kDiffSeparator;
  using andweorc::cli::kExitUsage;
  // Everything after `--` (or Coz's `---`) is the command to profile; CLI11
  // never sees it, so the command's own options cannot be mistaken for ours.
  std::vector<std::string> command;
  int our_argc = argc;
  // `diff A1 A2 -- B1 B2`: there `--` separates the sides (commands.h).
  std::vector<char*> args(argv, argv + argc);
  const bool diff_sides = argc > 1 && std::strcmp(argv[1], "diff") == 0;
  for (int i = 1; i < argc; ++i) {
    if (diff_sides && std::strcmp(argv[i], "--") == 0) {
      args[static_cast<size_t>(i)] = const_cast<char*>(kDiffSeparator);
    } else if (!diff_sides && (std::strcmp(argv[i], "--") == 0 ||
                               std::strcmp(argv[i], "---") == 0)) {
      command.assign(argv + i + 1, argv + argc);
      our_argc = i;
      break;
    }
  }

  CLI::App app{
      "andweorc: a causal profiler for C and C++ programs.\n"
      "Finds the lines whose speed-up would speed up the whole program.",
      "andweorc"};
  app.set_version_flag("-V,--version", "andweorc " ANDWEORC_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  andweorc run -- ./my_program --its-args    profile, print the report\n"
      "  andweorc report profile.json                print a saved profile\n"
      "  andweorc diff main.json pr.json --format markdown --fail-on "
      "new-bottleneck\n"
      "                                              compare two versions\n"
      "  andweorc merge a.json b.json -o all.json    combine runs\n"
      "  andweorc attach 1234 --duration 10s         profile a running "
      "process\n"
      "  andweorc run --detached -- ./server         start, return; later:\n"
      "  andweorc status PID / andweorc stop PID     look, end and write\n"
      "'report', 'diff' and 'merge' also read Coz's profile.coz.\n\n"
      "Run 'andweorc COMMAND --help' for a command's options.\n"
      "Exit status: 'run' returns the program's own status; 'diff' returns 1 "
      "when a "
      "--fail-on rule is broken; 2 means a usage or input error; 3: "
      "'attach' could not attach to the process.");
  CommandRunner run = add_run_command(app, command);
  CommandRunner report = add_report_command(app);
  CommandRunner diff = add_diff_command(app);
  CommandRunner merge = add_merge_command(app);
  CommandRunner attach = add_attach_command(app);
  CommandRunner status = add_status_command(app);
  CommandRunner stop = add_stop_command(app);

  try {
    app.parse(our_argc, args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "andweorc: " << e.what() << "\n"
              << "Run 'andweorc --help' for usage.\n";
    return kExitUsage;
  }
  if (app.got_subcommand("run")) return run();
  if (app.got_subcommand("report")) return report();
  if (app.got_subcommand("diff")) return diff();
  if (app.got_subcommand("merge")) return merge();
  if (app.got_subcommand("attach")) return attach();
  if (app.got_subcommand("status")) return status();
  if (app.got_subcommand("stop")) return stop();
  return kExitUsage;
}
