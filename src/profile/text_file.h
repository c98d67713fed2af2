// text_file.h: reads a whole profile file into memory, with a size limit.
//
// Every profile reader starts here, so a huge or special file (a directory,
// /dev/zero) fails with one line instead of exhausting memory.
#ifndef ANDWEORC_PROFILE_TEXT_FILE_H_
#define ANDWEORC_PROFILE_TEXT_FILE_H_

#include <cstddef>
#include <optional>
#include <string>

namespace andweorc::profile {

// No profile of a real run comes near this; a larger file is refused.
inline constexpr size_t kMaxProfileBytes = size_t{1} << 30;  // 1 GiB

// The contents of `path`, or nullopt with *error set to one line
// ("cannot read PATH: why") when it cannot be opened or read, is a
// directory, or is larger than `max_bytes`.
std::optional<std::string> read_text_file(const std::string& path,
                                          size_t max_bytes, std::string* error);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_TEXT_FILE_H_
