// label_view.cc: see label_view.h.
#include "profile/label_view.h"

#include <algorithm>
#include <map>

namespace andweorc::profile {
namespace {

Profile with_stacks(const Profile& p, std::vector<Stack> stacks) {
  Profile out = p;
  out.stacks = std::move(stacks);
  out.samples = 0;
  for (const Stack& s : out.stacks) out.samples += s.samples;
  return out;
}

}  // namespace

std::optional<Label> parse_label_selector(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return Label{text.substr(0, eq), text.substr(eq + 1)};
}

uint64_t labelled_samples(const Profile& p) {
  uint64_t n = 0;
  for (const Stack& s : p.stacks)
    if (!s.labels.empty()) n += s.samples;
  return n;
}

std::vector<std::pair<Label, uint64_t>> samples_per_label(const Profile& p) {
  std::vector<uint64_t> per(p.labels.size(), 0);
  for (const Stack& s : p.stacks)
    for (uint32_t l : s.labels) per[l] += s.samples;
  std::vector<std::pair<Label, uint64_t>> out;
  for (size_t i = 0; i < per.size(); ++i)
    if (per[i] > 0) out.emplace_back(p.labels[i], per[i]);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  return out;
}

const Label* stack_label(const Profile& p, const Stack& s,
                         const std::string& key) {
  for (uint32_t l : s.labels)
    if (p.labels[l].key == key) return &p.labels[l];
  return nullptr;
}

Profile filter_by_label(const Profile& p, const Label& label) {
  std::vector<Stack> kept;
  for (const Stack& s : p.stacks) {
    for (uint32_t l : s.labels) {
      if (p.labels[l] == label) {
        kept.push_back(s);
        break;
      }
    }
  }
  return with_stacks(p, std::move(kept));
}

std::vector<LabelGroup> group_by_key(const Profile& p, const std::string& key) {
  std::map<std::string, std::vector<Stack>> groups;
  std::vector<Stack> none;
  for (const Stack& s : p.stacks) {
    if (const Label* l = stack_label(p, s, key))
      groups[l->value].push_back(s);
    else
      none.push_back(s);
  }
  std::vector<LabelGroup> out;
  for (auto& [value, stacks] : groups)
    out.push_back(LabelGroup{value, true, with_stacks(p, std::move(stacks))});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.profile.samples > b.profile.samples;
  });
  if (!none.empty())
    out.push_back(LabelGroup{"", false, with_stacks(p, std::move(none))});
  return out;
}

}  // namespace andweorc::profile
