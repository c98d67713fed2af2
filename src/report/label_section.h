// label_section.h: the "Labels" part of the text report.
//
// Contract: when the profile has labels, writes a heading, the share of
// samples that carried a label, and the labels with the most samples (at most
// `top`, 0 = all), each with its share of all samples. Writes nothing for a
// profile without labels. Deterministic.
#ifndef ANDWEORC_REPORT_LABEL_SECTION_H_
#define ANDWEORC_REPORT_LABEL_SECTION_H_

#include <cstddef>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace andweorc::report {

void write_label_section(const profile::Profile& p, std::ostream& out,
                         size_t top, const std::string& heading);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_LABEL_SECTION_H_
