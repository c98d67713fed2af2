// label_view.h: the sampling profile seen through application labels.
//
// Stacks carry the labels (andweorc::Label) their samples ran under. These
// functions select and split a Profile by label, for `andweorc report
// --label key=value` and `--group-by key`, and sum how much of it was
// labelled. Results are Profiles themselves, so every writer works on them.
#ifndef ANDWEORC_PROFILE_LABEL_VIEW_H_
#define ANDWEORC_PROFILE_LABEL_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profile/profile.h"

namespace andweorc::profile {

// "key=value" -> the label; nullopt without '=' or with an empty key.
std::optional<Label> parse_label_selector(const std::string& text);

// Samples whose stack carries at least one label.
uint64_t labelled_samples(const Profile& p);

// Weighted samples per label, most first (ties by key, then value).
std::vector<std::pair<Label, uint64_t>> samples_per_label(const Profile& p);

// `p` with only the stacks that carry `label`; counts.samples is their sum.
// Frames, labels and everything else are kept, so indices stay valid.
Profile filter_by_label(const Profile& p, const Label& label);

// One Profile per value of `key` (as filter_by_label), values by samples,
// most first. Samples without a `key` label go to a last group with
// has_label false (left out when there are none).
struct LabelGroup {
  std::string value;
  bool has_label = true;
  Profile profile;
};
std::vector<LabelGroup> group_by_key(const Profile& p, const std::string& key);

// The label of stack `s` with key `key`, or nullptr.
const Label* stack_label(const Profile& p, const Stack& s,
                         const std::string& key);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_LABEL_VIEW_H_
