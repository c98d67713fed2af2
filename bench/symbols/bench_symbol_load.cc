// bench_symbol_load.cc: time to open a module and load all line tables and
// the whole inline index, per 100 MB of DWARF; plus per-address lookup cost.
// Usage: bench_symbol_load BINARY [REPEATS]
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "symbols/module.h"

namespace {

using andweorc::symbols::Module;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Sum of the .debug_* section sizes, as stored in the file.
uint64_t dwarf_bytes(const char* path) {
  elf_version(EV_CURRENT);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  uint64_t total = 0;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t shstrndx = 0;
  if (elf != nullptr && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr) continue;
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (name != nullptr && std::string(name).rfind(".debug_", 0) == 0) {
        total += sh.sh_size;
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return total;
}

long rss_mb() {
  long pages = 0, resident = 0;
  if (FILE* f = fopen("/proc/self/statm", "r")) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// CPU time of this process: on a shared machine it moves much less than wall
// time when other jobs compete for the cores.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BINARY [REPEATS]\n", argv[0]);
    return 2;
  }
  const char* path = argv[1];
  int repeats = argc > 2 ? std::max(1, atoi(argv[2])) : 3;
  double mb = dwarf_bytes(path) / 1e6;
  printf("binary: %s\nDWARF: %.1f MB (.debug_* sections)\n", path, mb);

  std::vector<double> open_s, lines_s, index_s, total_s, cpu_s;
  Module::Stats stats;
  long rss_before = rss_mb(), rss_after = 0;
  for (int r = 0; r < repeats; ++r) {
    std::string error;
    double c0 = cpu_seconds();
    auto t0 = Clock::now();
    auto mod = Module::open(path, "", &error);
    if (mod == nullptr || !mod->has_dwarf()) {
      fprintf(stderr, "cannot load %s: %s\n", path, error.c_str());
      return 1;
    }
    open_s.push_back(seconds_since(t0));
    auto t1 = Clock::now();
    mod->load_line_tables();
    lines_s.push_back(seconds_since(t1));
    auto t2 = Clock::now();
    mod->load_inline_index();
    index_s.push_back(seconds_since(t2));
    total_s.push_back(seconds_since(t0));
    cpu_s.push_back(cpu_seconds() - c0);
    stats = mod->stats();
    rss_after = std::max(rss_after, rss_mb());
  }
  double total = median(total_s);
  printf("compile units: %zu, inline-index entries: %zu\n", stats.compile_units,
         stats.inline_entries);
  printf("open:            %.3f s\n", median(open_s));
  printf("line tables:     %.3f s\n", median(lines_s));
  printf("inline index:    %.3f s\n", median(index_s));
  printf("load total:      %.3f s (median of %d; min %.3f s)\n", total, repeats,
         *std::min_element(total_s.begin(), total_s.end()));
  double cpu = median(cpu_s);
  printf("load CPU time:   %.3f s (median)\n", cpu);
  printf("per 100 MB DWARF: %.3f s wall, %.3f s CPU  (target <= 1 s)\n",
         mb > 0 ? total * 100 / mb : 0.0, mb > 0 ? cpu * 100 / mb : 0.0);
  printf("RSS: %ld MB before, %ld MB peak after loading\n", rss_before,
         rss_after);

  // Lookups: line-table addresses in random order, first on a lazily loaded
  // module (includes per-CU index builds), then again on the warm one.
  std::string error;
  auto mod = Module::open(path, "", &error);
  std::vector<uint64_t> addrs;
  {
    auto scan = Module::open(path, "", &error);
    scan->for_each_line_range([&](std::string_view, int, uint64_t lo,
                                  uint64_t) { addrs.push_back(lo); });
  }
  std::mt19937_64 rng(1);
  std::shuffle(addrs.begin(), addrs.end(), rng);
  addrs.resize(std::min<size_t>(addrs.size(), 200000));
  size_t frames = 0;
  auto t0 = Clock::now();
  for (uint64_t a : addrs) frames += mod->lookup(a).size();
  double cold = seconds_since(t0);
  t0 = Clock::now();
  for (uint64_t a : addrs) frames += mod->lookup(a).size();
  double warm = seconds_since(t0);
  printf(
      "lookups: %zu addresses, %.2f frames each; lazy %.2f us/lookup, "
      "warm %.2f us/lookup\n",
      addrs.size(), frames / 2.0 / std::max<size_t>(addrs.size(), 1),
      cold * 1e6 / std::max<size_t>(addrs.size(), 1),
      warm * 1e6 / std::max<size_t>(addrs.size(), 1));
  return 0;
}
