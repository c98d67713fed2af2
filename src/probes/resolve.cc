// resolve.cc: DWARF walk for probe sites (functions, inlined copies, lines).
#include "probes/resolve.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "probes/linked_objects.h"
#include "probes/mechanism.h"
#include "symbols/demangle.h"

namespace andweorc::probes {
namespace {

namespace fs = std::filesystem;

// One opened ELF file and the biases that turn DWARF addresses into ELF
// vaddrs (libdwfl places an offline ET_DYN module at a bias of its own).
struct Binary {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* mod = nullptr;
  Dwarf_Addr elf_bias = 0;
  Dwarf_Addr dwarf_bias = 0;
  struct Load {
    uint64_t vaddr, offset, filesz;
    bool exec;
  };
  std::vector<Load> loads;
  ~Binary() {
    if (dwfl) dwfl_end(dwfl);
  }
  uint64_t to_vaddr(Dwarf_Addr dwarf_addr) const {
    return dwarf_addr + dwarf_bias - elf_bias;
  }
  // ELF vaddr -> file offset, only inside executable segments.
  std::optional<uint64_t> offset_of(uint64_t vaddr) const {
    for (const auto& l : loads)
      if (l.exec && vaddr >= l.vaddr && vaddr < l.vaddr + l.filesz)
        return vaddr - l.vaddr + l.offset;
    return std::nullopt;
  }
};

char* g_debuginfo_path = nullptr;  // elfutils default search path

std::unique_ptr<Binary> open_binary(const std::string& path,
                                    std::string* error) {
  static const Dwfl_Callbacks callbacks = {
      dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
      dwfl_offline_section_address, &g_debuginfo_path};
  auto b = std::make_unique<Binary>();
  b->dwfl = dwfl_begin(&callbacks);
  if (b->dwfl == nullptr) {
    *error = fmt::format("libdwfl: {}", dwfl_errmsg(-1));
    return nullptr;
  }
  dwfl_report_begin(b->dwfl);
  b->mod = dwfl_report_offline(b->dwfl, "", path.c_str(), -1);
  dwfl_report_end(b->dwfl, nullptr, nullptr);
  if (b->mod == nullptr) {
    *error = fmt::format("cannot read {} as ELF: {}", path, dwfl_errmsg(-1));
    return nullptr;
  }
  GElf_Addr elf_bias = 0;
  Elf* elf = dwfl_module_getelf(b->mod, &elf_bias);
  if (elf == nullptr) {
    *error = fmt::format("cannot read {} as ELF: {}", path, dwfl_errmsg(-1));
    return nullptr;
  }
  b->elf_bias = elf_bias;
  size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD)
      b->loads.push_back(
          {ph.p_vaddr, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0});
  }
  if (dwfl_module_getdwarf(b->mod, &b->dwarf_bias) == nullptr) {
    *error = fmt::format(
        "{} has no DWARF debug information (build with -g, or install its "
        "debug symbols): probes need it to find functions and lines",
        path);
    return nullptr;
  }
  return b;
}

// Calls fn(cu_die) for every compile unit.
template <typename Fn>
void for_each_cu(Binary& b, Fn fn) {
  Dwarf_Die* cu = nullptr;
  Dwarf_Addr bias = 0;
  while ((cu = dwfl_module_nextcu(b.mod, cu, &bias)) != nullptr) fn(cu);
}

std::string attr_string(Dwarf_Die* die, int name) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(die, name, &attr) == nullptr) return "";
  const char* s = dwarf_formstring(&attr);
  return s ? s : "";
}

// "ns::f(int) const" -> "ns::f": cut at the first '(' outside <...>.
std::string without_parameters(const std::string& s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0 && i > 0 && s.compare(0, 8, "operator") != 0)
      return s.substr(0, i);
  }
  return s;
}

std::string base_name(const std::string& path) {
  return fs::path(path).filename().string();
}

struct FunctionMatch {
  std::string display;  // for the candidate list
  std::vector<ProbeSite> sites;
};

// Entry address of a DIE with code, in DWARF address space.
bool entry_of(Dwarf_Die* die, Dwarf_Addr* pc) {
  if (dwarf_entrypc(die, pc) == 0) return true;
  if (dwarf_lowpc(die, pc) == 0) return true;
  Dwarf_Addr base, lo, hi;
  // The first range: where g++ puts the entry of a hot/cold split body.
  if (dwarf_ranges(die, 0, &base, &lo, &hi) > 0) {
    *pc = lo;
    return true;
  }
  return false;
}

void walk_functions(Binary& b, Dwarf_Die* die, const std::string& wanted,
                    std::map<std::string, FunctionMatch>* found) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      std::string name = attr_string(&child, DW_AT_name);
      std::string linkage = attr_string(&child, DW_AT_linkage_name);
      if (linkage.empty())
        linkage = attr_string(&child, DW_AT_MIPS_linkage_name);
      std::string full = linkage.empty() ? name : symbols::demangle(linkage);
      bool match = !name.empty() && (name == wanted || full == wanted ||
                                     without_parameters(full) == wanted);
      Dwarf_Addr pc = 0;
      if (match && !dwarf_hasattr(&child, DW_AT_declaration) &&
          entry_of(&child, &pc)) {
        const char* decl_file = dwarf_decl_file(&child);
        int decl_line = 0;
        dwarf_decl_line(&child, &decl_line);
        std::string decl = fmt::format(
            "{}:{}", decl_file ? std::string(decl_file) : "?", decl_line);
        // One function = one linkage name, or (C) one declaration.
        std::string key =
            linkage.empty()
                ? fmt::format("{}@{}:{}", name, decl_file ? decl_file : "?",
                              decl_line)
                : linkage;
        FunctionMatch& m = (*found)[key];
        m.display = fmt::format("{} ({})", full, decl);
        uint64_t vaddr = b.to_vaddr(pc);
        ProbeSite site{
            "", 0, vaddr,
            fmt::format(
                "{} {} at {:#x}", full,
                tag == DW_TAG_inlined_subroutine ? "inlined copy" : "entry",
                vaddr)};
        site.inlined = tag == DW_TAG_inlined_subroutine;
        m.sites.push_back(site);
      }
    }
    walk_functions(b, &child, wanted, found);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// Why an object did not resolve a probe: only kNotFound (and an object
// without DWARF) lets the search go on to the next object.
enum class Miss { kNotFound, kNoDwarf, kOther };

std::optional<ResolvedProbe> resolve_function(Binary& b, const ProbeSpec& spec,
                                              const std::string& in,
                                              std::string* error, Miss* miss) {
  std::map<std::string, FunctionMatch> found;
  for_each_cu(
      b, [&](Dwarf_Die* cu) { walk_functions(b, cu, spec.function, &found); });
  *miss = Miss::kOther;
  if (found.empty()) {
    *error = fmt::format(
        "--progress {}: no function named '{}' with code in {} "
        "(never defined, or removed by the compiler)",
        spec.name, spec.function, in);
    *miss = Miss::kNotFound;
    return std::nullopt;
  }
  if (found.size() > 1) {
    std::string list;
    for (const auto& [key, m] : found)
      list += (list.empty() ? "" : "; ") + m.display;
    *error = fmt::format(
        "--progress {}: '{}' is ambiguous, {} functions match: {} (name one "
        "by its qualified name or signature)",
        spec.name, spec.function, found.size(), list);
    return std::nullopt;
  }
  ResolvedProbe probe;
  probe.name = spec.name;
  probe.target = spec.target;
  probe.sites = std::move(found.begin()->second.sites);
  return probe;
}

// True when `path` is `suffix` or ends with "/" + suffix.
bool path_matches(const std::string& path, const std::string& suffix) {
  if (path == suffix) return true;
  return path.size() > suffix.size() &&
         path.compare(path.size() - suffix.size(), suffix.size(), suffix) ==
             0 &&
         path[path.size() - suffix.size() - 1] == '/';
}

std::optional<ResolvedProbe> resolve_line(Binary& b, const ProbeSpec& spec,
                                          const std::string& in,
                                          std::string* error, Miss* miss) {
  std::string suffix = fs::path(spec.file).lexically_normal().string();
  std::set<std::string> files;            // matching files with code
  std::set<int> lines_with_code;          // in those files
  std::map<uint64_t, std::string> sites;  // vaddr -> file
  for_each_cu(b, [&](Dwarf_Die* cu) {
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (dwarf_getsrclines(cu, &lines, &n) != 0) return;
    bool in_block = false;  // the previous row was this line too
    for (size_t i = 0; i < n; ++i) {
      Dwarf_Line* row = dwarf_onesrcline(lines, i);
      bool end = false, stmt = false;
      dwarf_lineendsequence(row, &end);
      if (end) {
        in_block = false;
        continue;
      }
      const char* src = dwarf_linesrc(row, nullptr, nullptr);
      int lineno = 0;
      dwarf_lineno(row, &lineno);
      std::string file =
          src ? fs::path(src).lexically_normal().string() : std::string();
      if (file.empty() || !path_matches(file, suffix)) {
        in_block = false;
        continue;
      }
      files.insert(file);
      if (lineno > 0) lines_with_code.insert(lineno);
      if (lineno != spec.line) {
        in_block = false;
        continue;
      }
      dwarf_linebeginstatement(row, &stmt);
      if (in_block || !stmt) {
        in_block = in_block || stmt;
        continue;
      }
      in_block = true;
      Dwarf_Addr addr = 0;
      dwarf_lineaddr(row, &addr);
      sites.emplace(b.to_vaddr(addr), file);
    }
  });
  *miss = Miss::kOther;
  if (files.empty()) {
    *error = fmt::format(
        "--progress {}: no source file ending in '{}' has code in {}",
        spec.name, spec.file, in);
    *miss = Miss::kNotFound;
    return std::nullopt;
  }
  if (files.size() > 1) {
    std::string list;
    for (const auto& f : files) list += (list.empty() ? "" : ", ") + f;
    *error = fmt::format(
        "--progress {}: '{}' is ambiguous, {} files match: {} (give more of "
        "the path)",
        spec.name, spec.file, files.size(), list);
    return std::nullopt;
  }
  if (sites.empty()) {
    auto after = lines_with_code.lower_bound(spec.line);
    std::string near;
    if (after != lines_with_code.begin())
      near += fmt::format("{}", *std::prev(after));
    if (after != lines_with_code.end())
      near += fmt::format("{}{}", near.empty() ? "" : " and ", *after);
    *error = fmt::format(
        "--progress {}: no code at {}:{} (optimized away or not a "
        "statement); nearest lines with code: {}",
        spec.name, *files.begin(), spec.line, near.empty() ? "none" : near);
    return std::nullopt;
  }
  ResolvedProbe probe;
  probe.name = spec.name;
  probe.target = spec.target;
  for (const auto& [vaddr, file] : sites)
    probe.sites.push_back(ProbeSite{
        "", 0, vaddr,
        fmt::format("{}:{} at {:#x}", base_name(file), spec.line, vaddr)});
  return probe;
}

// Resolves `spec` in the one ELF file `path` (canonical): the sites with
// their file offsets. `in` names the object in messages ("the program",
// "libfoo.so").
std::optional<ResolvedProbe> resolve_in(const std::string& path,
                                        const ProbeSpec& spec,
                                        const std::string& in,
                                        std::string* error, Miss* miss) {
  std::unique_ptr<Binary> b = open_binary(path, error);
  if (!b) {
    *miss = error->find("no DWARF") != std::string::npos ? Miss::kNoDwarf
                                                         : Miss::kOther;
    *error = fmt::format("--progress {}: {}", spec.name, *error);
    return std::nullopt;
  }
  std::optional<ResolvedProbe> probe =
      spec.is_line ? resolve_line(*b, spec, in, error, miss)
                   : resolve_function(*b, spec, in, error, miss);
  if (!probe) return std::nullopt;
  // Several DIEs may name one address (nested inlining): count it once.
  std::sort(
      probe->sites.begin(), probe->sites.end(),
      [](const ProbeSite& a, const ProbeSite& c) { return a.vaddr < c.vaddr; });
  probe->sites.erase(std::unique(probe->sites.begin(), probe->sites.end(),
                                 [](const ProbeSite& a, const ProbeSite& c) {
                                   return a.vaddr == c.vaddr;
                                 }),
                     probe->sites.end());
  std::ifstream file(path, std::ios::binary);
  for (auto& s : probe->sites) {
    std::optional<uint64_t> offset = b->offset_of(s.vaddr);
    if (!offset) {
      *error = fmt::format(
          "--progress {}: {} is outside the executable segments of {}",
          spec.name, s.where, path);
      *miss = Miss::kOther;
      return std::nullopt;
    }
    s.path = path;
    s.offset = *offset;
    uint8_t code[15] = {};
    file.seekg(std::streamoff(*offset));
    file.read(reinterpret_cast<char*>(code), sizeof code);
    s.uprobe_refuses = uprobe_refuses_instruction(code, size_t(file.gcount()));
    file.clear();
  }
  return probe;
}

// "a, b, c and 4 more"
std::string short_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 6; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > 6) out += fmt::format(" and {} more", names.size() - 6);
  return out;
}

// True when LIB as the user wrote it names `o`: its DT_NEEDED name, its
// file name, or a path suffix of its file (at a '/').
bool names_object(const std::string& lib, const LinkedObject& o) {
  if (lib == o.name || lib == base_name(o.path) || path_matches(o.path, lib))
    return true;
  std::error_code ec;
  return lib.find('/') != std::string::npos &&
         fs::canonical(lib, ec).string() == o.path;
}

// When a FUNCTION target not found looks like OBJECT:FUNCTION whose OBJECT
// was not taken for one (no '/', or not an ELF file), how to name it.
std::string object_hint(const ProbeSpec& spec) {
  const std::string& f = spec.function;
  size_t colon = spec.is_line ? std::string::npos : single_colon(f);
  if (colon == std::string::npos) return "";
  const std::string prefix = f.substr(0, colon);
  if (prefix.find('/') == std::string::npos)
    return fmt::format(
        "; to count in a program the profiled one starts, name it by its path "
        "(./{}:{})",
        prefix, f.substr(colon + 1));
  return fmt::format("; '{}' is not an ELF file that could hold it", prefix);
}

// The sites' descriptions name the library they are in.
ResolvedProbe in_library(ResolvedProbe probe, const LinkedObject& o) {
  probe.object = base_name(o.path);
  for (auto& s : probe.sites) s.where += " in " + probe.object;
  return probe;
}

}  // namespace

std::optional<ResolvedProbe> resolve_probe(const std::string& binary,
                                           const ProbeSpec& spec,
                                           std::string* error) {
  std::error_code ec;
  std::string path = fs::canonical(binary, ec).string();
  if (ec) {
    *error = fmt::format("--progress {}: cannot open {}: {}", spec.name, binary,
                         ec.message());
    return std::nullopt;
  }
  Miss miss = Miss::kOther;
  if (!spec.object.empty()) {
    // LIB:TARGET: that library only.
    const LinkedObjects& linked = linked_objects(path);
    for (const auto& o : linked.libraries) {
      if (!names_object(spec.object, o)) continue;
      auto probe = resolve_in(o.path, spec, base_name(o.path), error, &miss);
      if (!probe) return std::nullopt;
      probe->program = path;
      return in_library(std::move(*probe), o);
    }
    std::error_code lib_ec;
    const std::string lib_path =
        spec.object.find('/') != std::string::npos
            ? fs::canonical(spec.object, lib_ec).string()
            : std::string();
    // The path of a program: the profiled one itself, or one it starts
    // (a shell's `nginx & load`): resolved there; the runtime of that
    // program's processes counts it as its executable's.
    if (!lib_path.empty() && !lib_ec && !interpreter_of(lib_path).empty()) {
      auto probe = resolve_in(
          lib_path, spec,
          lib_path == path ? "the program" : base_name(lib_path), error, &miss);
      if (!probe) return std::nullopt;
      probe->program = lib_path;
      if (lib_path != path) {
        probe->started_program = true;
        probe->object = base_name(lib_path);
        for (auto& s : probe->sites) s.where += " in " + probe->object;
      }
      return probe;
    }
    // A path to a library the program loads later (dlopen): resolved in
    // that file; the runtime patches it once the program has loaded it.
    if (!lib_path.empty() && !lib_ec) {
      LinkedObject later{base_name(lib_path), lib_path};
      auto probe = resolve_in(lib_path, spec, later.name, error, &miss);
      if (!probe) return std::nullopt;
      probe->program = path;
      probe->loaded_later = true;
      return in_library(std::move(*probe), later);
    }
    std::vector<std::string> names;
    for (const auto& o : linked.libraries) names.push_back(o.name);
    *error = fmt::format(
        "--progress {}: '{}' is not a library {} loads at start-up ({}){}; "
        "for one it loads later (dlopen), give the library's path "
        "(/path/to/{}:...)",
        spec.name, spec.object, base_name(path),
        names.empty() ? "it loads none" : "it loads: " + short_list(names),
        linked.error.empty() ? "" : "; " + linked.error, spec.object);
    return std::nullopt;
  }
  // The executable first: where it has the function (or file), the
  // libraries are not searched (as before libraries were, and the copy a
  // call from the program reaches when both define it).
  auto probe = resolve_in(path, spec, "the program", error, &miss);
  if (probe) {
    probe->program = path;
    return probe;
  }
  if (miss == Miss::kOther) return std::nullopt;
  const std::string program_error = *error;
  const LinkedObjects& linked = linked_objects(path);
  // Then every library it loads at start-up, in the loader's order; a name
  // found in several is ambiguous (LIB:TARGET picks one).
  std::vector<std::pair<LinkedObject, ResolvedProbe>> found;
  std::vector<std::string> searched, without_dwarf;
  for (const auto& o : linked.libraries) {
    std::string why;
    auto p = resolve_in(o.path, spec, base_name(o.path), &why, &miss);
    if (p) {
      found.emplace_back(o, std::move(*p));
    } else if (miss == Miss::kNotFound) {
      searched.push_back(o.name);
    } else if (miss == Miss::kNoDwarf) {
      without_dwarf.push_back(o.name);
    } else {
      *error = why;  // found there, but ambiguous or without code
      return std::nullopt;
    }
  }
  if (found.size() == 1) {
    found[0].second.program = path;
    return in_library(std::move(found[0].second), found[0].first);
  }
  const std::string what = spec.is_line
                               ? spec.file + ":" + std::to_string(spec.line)
                               : spec.function;
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const auto& [o, p] : found)
      names.push_back(fmt::format("{} ({})", o.name, o.path));
    *error = fmt::format(
        "--progress {}: '{}' is ambiguous, it is in {} libraries the program "
        "loads: {} (name one: {}:{})",
        spec.name, what, found.size(), short_list(names), found[0].first.name,
        what);
    return std::nullopt;
  }
  *error = program_error;
  if (!searched.empty())
    *error += fmt::format("; not in the libraries it loads either ({})",
                          short_list(searched));
  if (!without_dwarf.empty())
    *error += fmt::format(
        "; libraries without DWARF, not searched: {} (install their debug "
        "symbols)",
        short_list(without_dwarf));
  if (!linked.error.empty())
    *error += "; its libraries could not be listed: " + linked.error;
  *error += object_hint(spec);
  return std::nullopt;
}

}  // namespace andweorc::probes
