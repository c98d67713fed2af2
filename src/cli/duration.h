// duration.h: parses durations such as "1ms", "250us", "2s", "10m", "1h"
// or "1000000" (plain numbers are nanoseconds).
#ifndef ANDWEORC_CLI_DURATION_H_
#define ANDWEORC_CLI_DURATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace andweorc::cli {

std::optional<uint64_t> parse_duration_ns(std::string_view text);

// The live page's sample period `text` ("4ms") as a whole multiple of the
// run's `base_ns` (1..64; runtime/sample_period.h says why a multiple);
// false with *error naming the periods that are possible.
bool period_multiple(const std::string& text, uint64_t base_ns,
                     uint32_t* multiple, std::string* error);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_DURATION_H_
