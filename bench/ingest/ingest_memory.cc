// ingest_memory: the tool's memory when it turns a long run's raw file into
// a profile (issue 11: bounded, whatever the run's length).
//
//   ingest_memory gen DIR MINUTES [THREADS]   writes DIR/1.awr: MINUTES of
//       samples at 1 kHz per thread (default 8 threads), stacks of 6-17
//       frames drawn from a few thousand distinct stacks of this binary's
//       own code (so symbolization reads real DWARF)
//   ingest_memory ingest DIR          read_raw_dir + build_profile, as
//       `andweorc run` does (samples streamed from the file)
//   ingest_memory ingest-in-memory DIR   the way before streaming: the
//       whole file read into memory, every sample decoded, then built
//
// run_ingest_memory.sh runs these under /usr/bin/time -v for growing
// MINUTES and prints peak RSS; the numbers are in docs/design.md.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "runtime/raw_format.h"
#include "symbols/symbolizer.h"

namespace {

namespace raw = andweorc::raw;
namespace ingest = andweorc::ingest;

std::string self_maps() {
  std::ifstream in("/proc/self/maps");
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// [start, end) of this executable's first executable mapping.
bool own_text(const std::string& maps, uint64_t* start, uint64_t* end) {
  std::string exe = std::filesystem::canonical("/proc/self/exe").string();
  size_t pos = 0;
  while (pos < maps.size()) {
    size_t nl = maps.find('\n', pos);
    std::string line = maps.substr(pos, nl - pos);
    pos = nl == std::string::npos ? maps.size() : nl + 1;
    if (line.find(" r-xp ") == std::string::npos || line.size() < exe.size() ||
        line.compare(line.size() - exe.size(), exe.size(), exe) != 0)
      continue;
    std::sscanf(line.c_str(), "%lx-%lx", start, end);
    return true;
  }
  return false;
}

class Writer {
 public:
  explicit Writer(const std::string& path) : out_(path, std::ios::binary) {
    raw::FileHeader fh{};
    std::memcpy(fh.magic, raw::kMagic, sizeof fh.magic);
    fh.version = raw::kRawVersion;
    fh.header_size = sizeof fh;
    out_.write(reinterpret_cast<const char*>(&fh), sizeof fh);
  }
  void record(uint32_t type, const std::string& body) {
    raw::RecordHeader h{type, uint32_t(body.size())};
    out_.write(reinterpret_cast<const char*>(&h), sizeof h);
    out_ << body;
    static const char zeros[8] = {};
    out_.write(zeros, raw::padded8(uint32_t(body.size())) - body.size());
  }
  bool ok() const { return bool(out_); }

 private:
  std::ofstream out_;
};

int generate(const std::string& dir, double minutes, int threads) {
  std::string maps = self_maps();
  uint64_t text_start = 0, text_end = 0;
  if (!own_text(maps, &text_start, &text_end)) {
    std::fprintf(stderr, "ingest_memory: own code not found in maps\n");
    return 1;
  }
  std::filesystem::create_directories(dir);
  Writer w(dir + "/1" + raw::kRawSuffix);
  std::string body(sizeof(raw::ProcessRecord), '\0');
  raw::ProcessRecord pr{};
  pr.pid = 1;
  pr.sampler = raw::kSamplerPerf;
  pr.period_ns = 1000000;
  std::memcpy(body.data(), &pr, sizeof pr);
  body += std::filesystem::canonical("/proc/self/exe").string();
  body.push_back('\0');
  w.record(raw::kProcess, body);
  w.record(raw::kMaps, maps);
  // 256 code addresses spread over our text; a stack is a path through
  // them fixed by a small seed, so the distinct stacks stay a few thousand
  // however long the run (as in a real program).
  std::vector<uint64_t> code(256);
  for (size_t i = 0; i < code.size(); ++i)
    code[i] = text_start + (i * 7919 * 16) % (text_end - text_start);
  constexpr int kDistinct = 4096;
  uint64_t samples = uint64_t(minutes * 60 * 1000);  // per thread
  constexpr int kBatch = 20;  // a thread's 20 ms, as the collector writes
  uint64_t rng = 88172645463325252ull;
  std::string batch;
  for (uint64_t ms = 0; ms < samples; ms += kBatch) {
    for (int t = 0; t < threads; ++t) {
      batch.clear();
      for (int k = 0; k < kBatch; ++k) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        uint64_t shape = rng % kDistinct;
        uint16_t depth = uint16_t(6 + shape % 12);
        raw::SampleHeader sh{};
        sh.tid = uint32_t(100 + t);
        sh.nframes = depth;
        sh.time_ns = (ms + uint64_t(k)) * 1000000 + uint64_t(t);
        sh.weight = 1;
        batch.append(reinterpret_cast<const char*>(&sh), sizeof sh);
        uint64_t s = shape * 2654435761u;
        for (uint16_t f = 0; f < depth; ++f) {
          uint64_t addr = code[(s >> (f % 24)) % code.size()] + f;
          batch.append(reinterpret_cast<const char*>(&addr), sizeof addr);
        }
      }
      w.record(raw::kSamples, batch);
    }
  }
  raw::EndRecord end{samples * 1000000};
  w.record(raw::kEnd,
           std::string(reinterpret_cast<const char*>(&end), sizeof end));
  return w.ok() ? 0 : 1;
}

int build(const std::string& dir, bool in_memory) {
  std::vector<ingest::RawProcess> procs;
  std::string error;
  if (in_memory) {
    // Before issue 11: the file in a string, every sample in a vector.
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
      ingest::RawProcess p;
      if (!ingest::parse_raw_bytes(bytes, e.path().string(), &p, &error)) {
        std::fprintf(stderr, "ingest_memory: %s\n", error.c_str());
        return 1;
      }
      procs.push_back(std::move(p));
    }
  } else if (!ingest::read_raw_dir(dir, &procs, &error)) {
    std::fprintf(stderr, "ingest_memory: %s\n", error.c_str());
    return 1;
  }
  andweorc::symbols::Symbolizer symbolizer;
  andweorc::profile::Profile prof;
  ingest::build_profile(procs, {}, symbolizer, &prof);
  std::printf("samples %llu stacks %zu frames %zu warnings %zu\n",
              (unsigned long long)prof.samples, prof.stacks.size(),
              prof.frames.size(), prof.warnings.size());
  for (const auto& w : prof.warnings) std::printf("  %s\n", w.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "gen") == 0)
    return generate(argv[2], std::atof(argv[3]),
                    argc > 4 ? std::atoi(argv[4]) : 8);
  if (argc == 3 && std::strcmp(argv[1], "ingest") == 0)
    return build(argv[2], false);
  if (argc == 3 && std::strcmp(argv[1], "ingest-in-memory") == 0)
    return build(argv[2], true);
  std::fprintf(stderr,
               "usage: ingest_memory gen DIR MINUTES [THREADS]\n"
               "       ingest_memory ingest|ingest-in-memory DIR\n");
  return 2;
}
