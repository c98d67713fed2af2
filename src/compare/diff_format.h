// diff_format.h: number and name formatting shared by the diff writers.
#ifndef ANDWEORC_COMPARE_DIFF_FORMAT_H_
#define ANDWEORC_COMPARE_DIFF_FORMAT_H_

#include <optional>
#include <string>

#include "compare/line_status.h"
#include "compare/profile_diff.h"

namespace andweorc::compare::format {

// "0.850 [0.700, 1.000]" (+ " *" when significant); "-" when absent; the
// verdict in words when not fitted.
std::string impact(const std::optional<experiments::LineImpact>& i);

// "-0.830 (q = 0.0001)" (", vs 0" for a one-sided test) or "" when not
// tested.
std::string change(const std::optional<ImpactDelta>& d);

// "+17.9% time [+12.0%, +24.1%], q = 0.0004 *; 1 vs 1 run" (* when
// significant), or "" when the point's speed could not be tested.
std::string speed_test(const PointChange& p);

// "demo.c:42" (the file as paths shows it); "?" for unknown files.
std::string location(const report::SourcePaths& paths, const std::string& file,
                     int line);

// Seconds as "1.23 ms" etc.
std::string seconds(double s);

// "2.000 ms -> 1.000 ms per visit (50.0% faster); change -50.0% time
// [...]", for a point.
std::string point_speed(const PointChange& p);

// "45.0% -> 10.0%" and "-35.0 pp".
std::string shares(const ShareChange& s);
std::string share_change(const ShareChange& s);

}  // namespace andweorc::compare::format

#endif  // ANDWEORC_COMPARE_DIFF_FORMAT_H_
