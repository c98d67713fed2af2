// linked_objects.cc: the loader's `--list` of an executable, run and parsed
// (see linked_objects.h).
#include "probes/linked_objects.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

extern char** environ;

namespace andweorc::probes {
namespace {

namespace fs = std::filesystem;

// Runs `argv` (no shell) with stdout into a pipe and stderr discarded;
// true with its output in `out`, else false with `error`.
bool run_capture(const std::vector<std::string>& argv, std::string* out,
                 std::string* error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = fmt::format("pipe: {}", std::strerror(errno));
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    *error = fmt::format("cannot run {}: {}", argv[0], std::strerror(rc));
    return false;
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out->append(buf, size_t(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = fmt::format("{} --list failed (status {})", argv[0], status);
    return false;
  }
  return true;
}

}  // namespace

// PT_INTERP of `path`, "" for a static executable (or one libelf cannot
// read: the DWARF reader reports that itself).
std::string interpreter_of(const std::string& path) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string interp;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t phnum = 0;
  if (elf != nullptr && elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_INTERP ||
          ph.p_filesz == 0 || ph.p_filesz > 4096)
        continue;
      std::string text(ph.p_filesz, '\0');
      if (pread(fd, text.data(), text.size(), off_t(ph.p_offset)) ==
          ssize_t(text.size()))
        interp = text.c_str();  // up to its NUL
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return interp;
}

LinkedObjects parse_loader_list(const std::string& text) {
  LinkedObjects out;
  std::set<std::string> seen;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first);
    // The load address the loader printed, " (0x...)", is not part of it.
    size_t addr = line.rfind(" (0x");
    std::string name, path;
    size_t arrow = line.find(" => ");
    if (arrow != std::string::npos) {
      name = line.substr(0, arrow);
      path = line.substr(arrow + 4, addr == std::string::npos || addr < arrow
                                        ? std::string::npos
                                        : addr - arrow - 4);
      if (path.rfind("not found", 0) == 0) {
        out.missing.push_back(name);
        continue;
      }
    } else {
      path = line.substr(0, addr);
      name = fs::path(path).filename().string();
    }
    if (path.empty() || path[0] != '/') continue;  // the vDSO: no file
    std::error_code ec;
    std::string canonical = fs::canonical(path, ec).string();
    if (ec) continue;
    if (seen.insert(canonical).second)
      out.libraries.push_back({name, canonical});
  }
  return out;
}

const LinkedObjects& linked_objects(const std::string& executable) {
  static std::map<std::string, LinkedObjects> cache;
  auto it = cache.find(executable);
  if (it != cache.end()) return it->second;
  LinkedObjects& out = cache[executable];
  std::string interp = interpreter_of(executable);
  if (interp.empty()) return out;  // static: no library
  std::string text, error;
  if (!run_capture({interp, "--list", executable}, &text, &error)) {
    out.error = error;
    return out;
  }
  out = parse_loader_list(text);
  // The executable itself is never a library of its own.
  std::erase_if(out.libraries,
                [&](const LinkedObject& o) { return o.path == executable; });
  return out;
}

}  // namespace andweorc::probes
