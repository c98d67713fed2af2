// line_cache.cc: see line_cache.h.
//
// Format (native byte order: the cache is per machine):
//   header   "ANDWLINE", u32 version, u32 0, u64 payload size, u64 FNV-1a of
//            the payload
//   payload  u32 strings, u32 lines, u32 functions, u32 0, u64 ranges;
//            strings: u32 length + bytes each;
//            lines: u32 file string, i32 line, u32 function string;
//            functions: u32 string; ranges: u64 lo, u64 hi, u32 line,
//            u32 function.
#include "symbols/line_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

namespace andweorc::symbols {
namespace {

// Bump when the file layout or what in_scope_lines() chooses changes: old
// entries are then never read (the version is in the name, too).
constexpr uint32_t kVersion = 1;
constexpr char kMagic[8] = {'A', 'N', 'D', 'W', 'L', 'I', 'N', 'E'};
constexpr size_t kHeader = 8 + 4 + 4 + 8 + 8;

uint64_t fnv1a(const char* p, size_t n, uint64_t h = 14695981039346656037ull) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

class Writer {
 public:
  template <typename T>
  void put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put_string(const std::string& s) {
    put(uint32_t(s.size()));
    out_ += s;
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), end_(p + n) {}
  template <typename T>
  bool get(T* v) {
    if (size_t(end_ - p_) < sizeof *v) return false;
    std::memcpy(v, p_, sizeof *v);
    p_ += sizeof *v;
    return true;
  }
  bool get_string(std::string* s) {
    uint32_t n = 0;
    if (!get(&n) || size_t(end_ - p_) < n) return false;
    s->assign(p_, n);
    p_ += n;
    return true;
  }
  // Whether `count` items of at least `each` bytes can still be there (a
  // corrupt count must not make us allocate gigabytes).
  bool room_for(uint64_t count, size_t each) const {
    return count <= size_t(end_ - p_) / each;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("ANDWEORC_CACHE_DIR"); d && *d)
    return std::strcmp(d, "off") == 0 ? "" : d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/andweorc";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/andweorc";
  return "";
}

std::string line_cache_path(const std::string& cache_dir,
                            const std::string& build_id,
                            const ScopeMatcher& scope) {
  if (cache_dir.empty() || build_id.empty()) return "";
  std::string key = scope.source_key();
  return cache_dir + "/lines/" + build_id + "-" +
         hex64(fnv1a(key.data(), key.size())) + ".v" + std::to_string(kVersion);
}

bool write_line_cache(const std::string& path, const ModuleLines& lines,
                      std::string* error) {
  // One table of strings: file names and function names repeat.
  Writer payload;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<const std::string*> strings;
  auto id = [&](const std::string& s) {
    auto [it, added] = ids.try_emplace(s, uint32_t(strings.size()));
    if (added) strings.push_back(&it->first);
    return it->second;
  };
  std::vector<uint32_t> line_refs, function_refs;
  for (const auto& l : lines.lines) {
    line_refs.push_back(id(l.file));
    line_refs.push_back(id(l.function));
  }
  for (const auto& f : lines.functions) function_refs.push_back(id(f));
  payload.put(uint32_t(strings.size()));
  payload.put(uint32_t(lines.lines.size()));
  payload.put(uint32_t(lines.functions.size()));
  payload.put(uint32_t(0));
  payload.put(uint64_t(lines.ranges.size()));
  for (const std::string* s : strings) payload.put_string(*s);
  for (size_t i = 0; i < lines.lines.size(); ++i) {
    payload.put(line_refs[2 * i]);
    payload.put(int32_t(lines.lines[i].line));
    payload.put(line_refs[2 * i + 1]);
  }
  for (uint32_t f : function_refs) payload.put(f);
  for (const auto& r : lines.ranges) {
    payload.put(r.lo);
    payload.put(r.hi);
    payload.put(r.line);
    payload.put(r.function);
  }
  const std::string& body = payload.bytes();
  Writer file;
  file.bytes().append(kMagic, sizeof kMagic);
  file.put(kVersion);
  file.put(uint32_t(0));
  file.put(uint64_t(body.size()));
  file.put(fnv1a(body.data(), body.size()));
  file.bytes() += body;

  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  bool ok =
      static_cast<bool>(std::ofstream(tmp, std::ios::binary | std::ios::trunc)
                        << file.bytes());  // flushed and closed here
  if (ok) fs::rename(tmp, path, ec);
  if (!ok || ec) {
    *error = "cannot write " + path + ": " +
             (ec ? ec.message() : std::string(std::strerror(errno)));
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

bool read_line_cache(const std::string& path, ModuleLines* out,
                     std::string* error) {
  // One read: the file is a few MB and read at the program's start. Its
  // size from the file system: a stream's end of a directory is no size.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) {
    *error = "cannot open " + path + ": " + ec.message();
    return false;
  }
  if (!std::filesystem::is_regular_file(status)) {
    *error = path + ": not a readable file";
    return false;
  }
  const uintmax_t length = std::filesystem::file_size(path, ec);
  // A few MB for the largest programs: far more is no entry of ours (and
  // must not become an allocation failure inside the profiled program).
  if (!ec && length > (uintmax_t(1) << 30)) {
    *error = path + ": too large for a line cache";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string all(size_t(length), '\0');
  in.read(all.data(), std::streamsize(all.size()));
  all.resize(size_t(in.gcount()));
  Reader header(all.data(), std::min(all.size(), kHeader));
  char magic[8];
  uint32_t version = 0, zero = 0;
  uint64_t size = 0, sum = 0;
  bool ok = all.size() >= kHeader && header.get(&magic) &&
            std::memcmp(magic, kMagic, sizeof kMagic) == 0 &&
            header.get(&version) && version == kVersion && header.get(&zero) &&
            header.get(&size) && header.get(&sum);
  if (!ok) {
    *error = path + ": not a line cache of this version";
    return false;
  }
  if (size != all.size() - kHeader ||
      fnv1a(all.data() + kHeader, size) != sum) {
    *error = path + ": truncated or corrupt";
    return false;
  }
  Reader r(all.data() + kHeader, size);
  uint32_t nstrings = 0, nlines = 0, nfunctions = 0;
  uint64_t nranges = 0;
  ModuleLines m;
  std::vector<std::string> strings;
  ok = r.get(&nstrings) && r.get(&nlines) && r.get(&nfunctions) &&
       r.get(&zero) && r.get(&nranges) && r.room_for(nstrings, 4);
  if (ok) strings.resize(nstrings);
  for (uint32_t i = 0; ok && i < nstrings; ++i) ok = r.get_string(&strings[i]);
  ok = ok && r.room_for(nlines, 12);
  if (ok) m.lines.resize(nlines);
  for (auto& l : m.lines) {
    uint32_t file = 0, function = 0;
    int32_t line = 0;
    ok = ok && r.get(&file) && r.get(&line) && r.get(&function) &&
         file < nstrings && function < nstrings;
    if (!ok) break;
    l = {strings[file], int(line), strings[function]};
  }
  ok = ok && r.room_for(nfunctions, 4);
  if (ok) m.functions.resize(nfunctions);
  for (auto& f : m.functions) {
    uint32_t s = 0;
    ok = ok && r.get(&s) && s < nstrings;
    if (!ok) break;
    f = strings[s];
  }
  ok = ok && r.room_for(nranges, 24);
  if (ok) m.ranges.resize(nranges);
  for (auto& g : m.ranges) {
    ok = ok && r.get(&g.lo) && r.get(&g.hi) && r.get(&g.line) &&
         r.get(&g.function) && g.lo < g.hi && g.line < nlines &&
         g.function < nfunctions;
    if (!ok) break;
  }
  if (!ok || !r.done()) {
    *error = path + ": corrupt (counts or ids out of range)";
    return false;
  }
  *out = std::move(m);
  return true;
}

void prune_line_cache(const std::string& cache_dir, size_t keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(cache_dir + "/lines", ec)) {
    auto t = e.last_write_time(ec);
    if (ec) continue;
    // A writer still writing renames within milliseconds; an hour-old
    // temporary file is a killed one's.
    // The entry's own name: the directory above may hold ".tmp" too.
    if (e.path().filename().string().find(".tmp") != std::string::npos) {
      if (now - t > std::chrono::hours(1)) fs::remove(e.path(), ec);
      continue;
    }
    entries.emplace_back(t, e.path());
  }
  if (entries.size() <= keep) return;
  std::sort(entries.begin(), entries.end(),
            [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = keep; i < entries.size(); ++i)
    fs::remove(entries[i].second, ec);
}

}  // namespace andweorc::symbols
