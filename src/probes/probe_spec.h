// probe_spec.h: `--progress NAME=TARGET` parsed: a function name or a
// FILE:LINE, and the text handed to the runtime (ANDWEORC_PROBES).
#ifndef ANDWEORC_PROBES_PROBE_SPEC_H_
#define ANDWEORC_PROBES_PROBE_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace andweorc::probes {

struct ProbeSpec {
  std::string name;      // the progress point's name
  std::string target;    // as given, for messages
  bool is_line = false;  // FILE:LINE, else a function
  std::string file;      // FILE:LINE only
  int line = 0;          // FILE:LINE only
  std::string function;  // function only
  // LIB:FUNCTION or LIB:FILE:LINE: only in the shared library LIB (a name or
  // path of a library the program links), or in the program at path LIB
  // (one the profiled program starts, resolve.h); "" searches the
  // executable, then its libraries.
  std::string object;
};

// Parses NAME=[LIB:]FUNCTION or NAME=[LIB:]FILE:LINE. LIB is the text before
// the first single ':' (not one of a "::") when its file name ends in ".so"
// or holds ".so." (libfoo.so, libfoo.so.1, /opt/lib/libfoo.so), or when it
// is a path (with a '/') to an ELF file (./objs/nginx). A target
// whose text after the last ':' is a positive number is a line (a C++ name
// never ends that way); anything else is a function. nullopt with `error`
// set on bad input.
std::optional<ProbeSpec> parse_probe_spec(const std::string& text,
                                          std::string* error);

// The position of the first ':' that is not half of a "::", or npos: where
// an object prefix (LIB:, PROGRAM:) would end.
size_t single_colon(const std::string& s);

// Splits "LIB:REST" (LIB as parse_probe_spec recognizes it) into `lib` and
// `rest`; false (and nothing set) when `target` names no library.
bool split_library(const std::string& target, std::string* lib,
                   std::string* rest);

// One address to count, in a file the kernel can probe.
struct ProbeSite {
  std::string path;     // canonical path of the ELF file
  uint64_t offset = 0;  // file offset (uprobes)
  uint64_t vaddr = 0;   // ELF virtual address (breakpoints: + load bias)
  std::string where;    // "f (inlined in g) a.cc:12", for messages
  // The instruction there has a prefix x86 uprobes refuse (LOCK, or an
  // ES/CS/DS/SS override such as CET's `notrack`): counted by a hardware
  // breakpoint even when uprobes are allowed.
  bool inlined = false;  // an inlined copy (no return to probe)
  bool uprobe_refuses = false;
  // In-process patching (patch_sites.h): the encoded plan, or why the
  // address cannot be patched (counted by a perf event instead).
  std::string patch{};
  std::string patch_refused{};
};

// The kind field's value for the END of a --latency FILE:LINE,FILE:LINE pair:
// counted at an address, where kind 3 (END) of a --latency FUNCTION is
// counted at the function's return (a uretprobe).
constexpr int kKindEndAtAddress = 4;

// What the runtime needs: the point's name and kind and every site.
// Every site of one probe is in one object (`sites[i].path`).
struct ResolvedProbe {
  std::string name;
  int kind = 1;  // ANDWEORC_KIND_THROUGHPUT, BEGIN, END or kKindEndAtAddress
  std::string target;
  std::vector<ProbeSite> sites;
  // The executable resolved for (canonical path), and the file name of the
  // shared library the sites are in ("" when they are in the executable).
  std::string program;
  std::string object;
  // May be patched in process (not --latency FUNCTION: its end is a return).
  bool patchable = true;
  // In a library the program does not load at start-up (LIB given as a
  // path, loaded later with dlopen): only patched in process, once loaded.
  bool loaded_later = false;
  // In another program, one the profiled program starts (LIB given as the
  // path of an executable): `program` is that program, and its processes
  // count the sites as their own executable's.
  bool started_program = false;
};

// ANDWEORC_PROBES: one line per site, tab-separated:
//   NAME \t KIND \t PATH \t OFFSET(hex) \t VADDR(hex) [\t PATCH]
// PATCH (encode_patch in patch_plan.h) only when `patch` is set and the site
// is to be patched (`with_patches`); a line of five fields is counted by a
// perf event, as before. PATH is the object's file (the executable or a
// shared library); OFFSET and VADDR are in that file, the runtime adds the
// object's load bias. Before each probe's lines, when `program` is known and
// differs from the previous marker's, the marker line
//   @program \t 0 \t PROGRAM \t 0 \t 0
// (the runtime applies library lines only in a process of PROGRAM, and an
// executable's lines only in a process of that executable); probes of
// started programs come last. Names, paths and targets never hold tabs or
// newlines (checked on parse).
std::string encode_probes(const std::vector<ResolvedProbe>& probes,
                          bool with_patches = false);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_PROBE_SPEC_H_
