// The text report's process list (process_section.h).
#include "report/process_section.h"

#include <gtest/gtest.h>

#include <sstream>

namespace andweorc::report {
namespace {

profile::Process proc(int pid, int parent, uint64_t samples, int experiments,
                      bool clean = true) {
  profile::Process p{pid, "/srv/bin/server", clean};
  p.parent = parent;
  p.samples = samples;
  p.experiments = experiments;
  return p;
}

std::string render(const profile::Profile& p, size_t top) {
  std::ostringstream out;
  write_process_section(p, out, top, 60, "Processes:");
  return out.str();
}

TEST(ProcessSection, NothingForOneProcess) {
  profile::Profile p;
  p.processes.push_back(proc(10, 1, 500, 12));
  EXPECT_EQ(render(p, 10), "");
}

TEST(ProcessSection, MostSampledFirstWithParentsExperimentsAndKills) {
  profile::Profile p;
  p.processes.push_back(proc(10, 1, 5, 12));            // the master, waiting
  p.processes.push_back(proc(11, 10, 900, 12));         // a worker
  p.processes.push_back(proc(12, 10, 300, -1, false));  // killed, unknown
  std::string s = render(p, 10);
  EXPECT_EQ(s,
            "\nProcesses:\n"
            "      pid  parent  samples  exps  executable\n"
            "       11      10      900    12  server\n"
            "       12      10      300     -  server (killed)\n"
            "       10       1        5    12  server\n");
}

TEST(ProcessSection, LongNamesAreShortenedToTheWidth) {
  profile::Profile p;
  p.processes.push_back(proc(10, 1, 5, 1));
  p.processes.push_back(proc(11, 10, 9, 1));
  p.processes[0].executable = "/x/" + std::string(80, 'a');
  std::ostringstream out;
  write_process_section(p, out, 10, 60, "Processes:");
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(line.size(), 60u) << line;
}

TEST(ProcessSection, TopCutsTheListAndSaysHowManyMore) {
  profile::Profile p;
  for (int i = 0; i < 5; ++i) p.processes.push_back(proc(20 + i, 1, 10 * i, 0));
  std::string s = render(p, 2);
  EXPECT_NE(s.find("       24 "), std::string::npos);
  EXPECT_NE(s.find("       23 "), std::string::npos);
  EXPECT_EQ(s.find("       22 "), std::string::npos);
  EXPECT_NE(s.find("... and 3 more"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::report
