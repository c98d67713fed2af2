// duration.h: parses durations such as "1ms", "250us", "2s" or "1000000"
// (plain numbers are nanoseconds).
#ifndef ANDWEORC_CLI_DURATION_H_
#define ANDWEORC_CLI_DURATION_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace andweorc::cli {

std::optional<uint64_t> parse_duration_ns(std::string_view text);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_DURATION_H_
