// label_section.cc: see label_section.h.
#include "report/label_section.h"

#include <fmt/format.h>

#include "profile/label_view.h"
#include "report/display.h"

namespace andweorc::report {

void write_label_section(const profile::Profile& p, std::ostream& out,
                         size_t top, const std::string& heading) {
  if (p.labels.empty()) return;
  auto per_label = profile::samples_per_label(p);
  uint64_t labelled = profile::labelled_samples(p);
  auto share = [&](uint64_t n) {
    return p.samples == 0 ? 0.0 : double(n) / double(p.samples);
  };
  out << "\n" << heading << "\n";
  out << fmt::format("  {} of samples ({} of {}) carried a label\n",
                     format_share(share(labelled)), format_count(labelled),
                     format_count(p.samples));
  size_t n = top == 0 ? per_label.size() : std::min(top, per_label.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& [label, count] = per_label[i];
    out << fmt::format(
        "  {} {}  {}={}\n", pad_left(format_share(share(count)), 6),
        pad_left(format_count(count), 10), label.key, label.value);
  }
  if (n < per_label.size())
    out << fmt::format("  ... {} more labels\n", per_label.size() - n);
}

}  // namespace andweorc::report
