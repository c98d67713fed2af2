// attach_settings.cc: settings from the file `andweorc attach` wrote
// (attach_settings.h).
#include "runtime/attach_settings.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace andweorc::runtime {
namespace {

constexpr size_t kStoreBytes = 64 * 1024;
// Static, not allocated: the store lives as long as the library, which is
// never unloaded (a second attach reuses it).
char g_store[kStoreBytes];
size_t g_used = 0;
bool g_loaded = false;

}  // namespace

bool attach_settings_load(const char* path) {
  g_loaded = false;
  g_used = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t used = 0;
  bool ok = true;
  for (;;) {
    // One byte kept for the terminating NUL.
    ssize_t n = read(fd, g_store + used, kStoreBytes - 1 - used);
    if (n < 0) {
      ok = false;
      break;
    }
    if (n == 0) break;
    used += size_t(n);
    if (used == kStoreBytes - 1) {
      char extra;
      ok = read(fd, &extra, 1) == 0;  // larger than the store: refuse
      break;
    }
  }
  close(fd);
  if (!ok || used == 0) return false;
  g_store[used] = '\0';
  g_used = used;
  g_loaded = true;
  return true;
}

const char* runtime_setting(const char* name) {
  if (!g_loaded) return getenv(name);
  size_t len = strlen(name);
  for (size_t pos = 0; pos < g_used;) {
    const char* entry = g_store + pos;
    size_t entry_len = strnlen(entry, g_used - pos);
    if (entry_len > len && memcmp(entry, name, len) == 0 && entry[len] == '=')
      return entry + len + 1;
    pos += entry_len + 1;
  }
  return nullptr;
}

}  // namespace andweorc::runtime
