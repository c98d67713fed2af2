// diff_format.h: number and name formatting shared by the diff writers.
#ifndef ANDWEORC_COMPARE_DIFF_FORMAT_H_
#define ANDWEORC_COMPARE_DIFF_FORMAT_H_

#include <optional>
#include <string>

#include "compare/profile_diff.h"

namespace andweorc::compare::format {

// "0.850 [0.700, 1.000]" (+ " *" when significant); "-" when absent; the
// verdict in words when not fitted.
std::string impact(const std::optional<experiments::LineImpact>& i);

// "-0.830 (p = 0.0001)" or "" when not comparable.
std::string change(const std::optional<ImpactDelta>& d);

// "demo.c:42"; "?" for unknown files.
std::string location(const std::string& file, int line);

// Seconds as "1.23 ms" etc.
std::string seconds(double s);

// "2.000 ms -> 1.000 ms per visit (50.0% faster)", for a point.
std::string point_speed(const PointChange& p);

// "vanished bottleneck" etc.
std::string status_words(LineStatus s);

// "45.0% -> 10.0%" and "-35.0 pp".
std::string shares(const ShareChange& s);
std::string share_change(const ShareChange& s);

}  // namespace andweorc::compare::format

#endif  // ANDWEORC_COMPARE_DIFF_FORMAT_H_
