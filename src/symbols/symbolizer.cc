// symbolizer.cc: runtime address + recorded maps -> module, ELF vaddr and
// frames, with per-path module and per-(module, vaddr) result caches.
#include "symbols/symbolizer.h"

#include <utility>

#include "symbols/module.h"

namespace andweorc::symbols {

struct Symbolizer::Impl {
  std::string debuginfo_path;
  // nullptr entries remember failures so a bad file is tried only once.
  std::unordered_map<std::string, std::unique_ptr<Module>> modules;
  std::vector<ModuleInfo> infos;  // in first-seen order
  std::unordered_map<std::string, size_t> info_index;

  struct Key {
    const Module* module;
    uint64_t vaddr;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.module) ^
             (k.vaddr * 0x9e3779b97f4a7c15);
    }
  };
  std::unordered_map<Key, Location, KeyHash> cache;

  ModuleInfo& info(const std::string& key) {
    auto [it, inserted] = info_index.try_emplace(key, infos.size());
    if (inserted) infos.push_back(ModuleInfo{key, false, false, ""});
    return infos[it->second];
  }
};

Symbolizer::Symbolizer() : impl_(std::make_unique<Impl>()) {}
Symbolizer::~Symbolizer() = default;

void Symbolizer::set_debuginfo_path(std::string path) {
  impl_->debuginfo_path = std::move(path);
}

Module* Symbolizer::module(const std::string& path, std::string* error) {
  auto it = impl_->modules.find(path);
  if (it == impl_->modules.end()) {
    std::string err;
    auto m = Module::open(path, impl_->debuginfo_path, &err);
    ModuleInfo& info = impl_->info(path);
    info.opened = m != nullptr;
    info.has_dwarf = m != nullptr && m->has_dwarf();
    info.error = err;
    it = impl_->modules.emplace(path, std::move(m)).first;
  }
  if (it->second == nullptr && error != nullptr) {
    *error = impl_->infos[impl_->info_index.at(path)].error;
  }
  return it->second.get();
}

std::vector<Symbolizer::ModuleInfo> Symbolizer::modules_seen() const {
  return impl_->infos;
}

Location Symbolizer::symbolize(const ProcessMaps& maps, uint64_t address,
                               bool is_return_address) {
  // A return address points after the call; the call itself is one byte
  // earlier, and may even end the mapping the return address is not in.
  uint64_t lookup = is_return_address && address > 0 ? address - 1 : address;
  Location loc;
  const Mapping* m = maps.find(lookup);
  if (m == nullptr) {
    loc.frames.emplace_back();
    return loc;
  }
  loc.module = m->path;
  // Anonymous memory (JIT code), [vdso], [stack] etc.: no file to read.
  if (m->path.empty() || m->path[0] == '[') {
    loc.frames.emplace_back();
    return loc;
  }
  if (m->deleted) {
    // Whatever is at that path now is not what was mapped: don't guess.
    ModuleInfo& info = impl_->info(m->path + " (deleted)");
    info.error = m->path + " was deleted while mapped; not symbolized";
    loc.frames.emplace_back();
    return loc;
  }
  Module* mod = module(m->path);
  uint64_t vaddr = 0;
  if (mod == nullptr ||
      !mod->file_offset_to_vaddr(lookup - m->start + m->offset, &vaddr)) {
    loc.frames.emplace_back();
    return loc;
  }
  loc.module_vaddr = vaddr;
  Impl::Key key{mod, vaddr};
  auto it = impl_->cache.find(key);
  if (it != impl_->cache.end()) return it->second;
  loc.frames = mod->lookup(vaddr);
  impl_->cache.emplace(key, loc);
  return loc;
}

}  // namespace andweorc::symbols
