// atomic_file.h: replace a file's contents all at once.
//
// Contract: write_file_atomic writes `contents` to a new temporary file in
// the same directory as `path` (so rename stays on one file system), fsyncs
// it, gives it mode 0666 minus the process umask, and renames it over
// `path`; then it fsyncs the directory (best effort). Readers of `path` see
// either the old file or the complete new one, never a partial write. On
// failure nothing is left behind (the temporary file is removed), `path` is
// unchanged, and *error (if non-null) gets "cannot write PATH: REASON".
#ifndef ANDWEORC_PROFILE_ATOMIC_FILE_H_
#define ANDWEORC_PROFILE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

namespace andweorc::profile {

bool write_file_atomic(const std::string& path, std::string_view contents,
                       std::string* error);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_ATOMIC_FILE_H_
