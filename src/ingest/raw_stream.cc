// raw_stream.cc: raw files read record by record (raw_records.h), and the
// samples streamed back from a file read without them (for_each_sample).
// Memory is a window of the file (1 MiB, or the largest record), not the
// file: a one-hour run at 1 kHz on 8 threads writes gigabytes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ingest/raw_records.h"

namespace andweorc::ingest {
namespace {

// A raw file as a sequence of (header, payload) records, read through a
// window. The file's size is taken when it is opened: a writer still
// appending cannot make a record half-read (what it adds later is not
// seen, as when the whole file was read at once).
class RecordFile {
 public:
  enum Next { kRecord, kEnd, kTruncated };
  static constexpr size_t kWindow = size_t(1) << 20;

  RecordFile() = default;
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;
  ~RecordFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool open(const std::string& path, std::string* error) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      *error = "cannot read " + path + ": " + std::strerror(errno);
      return false;
    }
    size_ = uint64_t(st.st_size);
    raw::FileHeader fh{};
    if (load(0, sizeof fh)) std::memcpy(&fh, window_.data(), sizeof fh);
    if (!check_raw_header(fh, path, error)) return false;
    next_ = std::max<uint64_t>(fh.header_size, sizeof fh);
    return true;
  }

  // Moves to the next record (its header: type()); payload() then reads
  // its payload, window()[body(), end()). kTruncated: the file ends
  // inside it.
  Next next() {
    if (next_ >= size_) return kEnd;
    raw::RecordHeader rh;
    if (!load(next_, sizeof rh)) return kTruncated;
    std::memcpy(&rh, window_.data() + (next_ - start_), sizeof rh);
    uint64_t body = next_ + sizeof rh;
    if (body + rh.size > size_) return kTruncated;
    type_ = rh.type;
    at_ = body;
    len_ = rh.size;
    next_ = body + raw::padded8(rh.size);
    return kRecord;
  }
  bool payload() {
    if (!load(at_, len_)) return false;
    body_ = size_t(at_ - start_);
    end_ = body_ + len_;
    return true;
  }
  uint32_t type() const { return type_; }
  const std::string& window() const { return window_; }
  size_t body() const { return body_; }
  size_t end() const { return end_; }
  // Where the record after the current one starts.
  uint64_t offset() const { return next_; }

 private:
  // Makes [at, at + len) of the file available in window_; false when the
  // file is shorter.
  bool load(uint64_t at, size_t len) {
    if (at >= start_ && at + len <= start_ + filled_) return true;
    size_t want = size_t(std::min<uint64_t>(std::max(len, kWindow),
                                            size_ > at ? size_ - at : 0));
    if (want < len) return false;
    if (window_.size() < want) window_.resize(want);
    size_t got = 0;
    while (got < want) {
      ssize_t n =
          ::pread(fd_, window_.data() + got, want - got, off_t(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += size_t(n);
    }
    start_ = at;
    filled_ = got;
    return got >= len;
  }

  int fd_ = -1;
  uint64_t size_ = 0, next_ = 0;
  std::string window_;
  uint64_t start_ = 0;
  size_t filled_ = 0;
  uint32_t type_ = 0;
  uint64_t at_ = 0;  // the current payload's file offset and length
  size_t len_ = 0;
  size_t body_ = 0, end_ = 0;
};

}  // namespace

bool read_raw_stream(const std::string& path, bool keep_samples,
                     RawProcess* out, std::string* error) {
  RecordFile file;
  if (!file.open(path, error)) return false;
  *out = RawProcess{};
  out->path = path;
  out->samples_in_file = !keep_samples;
  out->samples_end = file.offset();
  uint64_t maps_time = 0;  // from the kMapsTime before the next kMaps
  for (;;) {
    RecordFile::Next n = file.next();
    if (n == RecordFile::kEnd) break;
    // Sample batches are most of the file: left there, not even read.
    bool leave = file.type() == raw::kSamples && !keep_samples;
    if (n == RecordFile::kTruncated || (!leave && !file.payload())) {
      out->truncated = true;
      break;
    }
    out->samples_end = file.offset();
    if (leave) continue;
    apply_record(file.type(), file.window(), file.body(), file.end(),
                 keep_samples, out, &maps_time);
  }
  return true;
}

bool for_each_sample(const RawProcess& p,
                     const std::function<void(const RawSample&)>& fn,
                     std::string* error) {
  if (!p.samples_in_file) {
    for (const RawSample& s : p.samples) fn(s);
    return true;
  }
  RecordFile file;
  if (!file.open(p.path, error)) return false;
  RawSample scratch;
  while (file.offset() < p.samples_end) {
    if (file.next() != RecordFile::kRecord || file.offset() > p.samples_end)
      break;  // not the file that was read: replaced meanwhile
    if (file.type() != raw::kSamples) continue;
    if (!file.payload()) break;
    for_each_decoded_sample(file.window(), file.body(), file.end(), &scratch,
                            fn);
  }
  if (file.offset() != p.samples_end) {
    *error = p.path +
             " changed after it was read: some of its samples are missing "
             "from the profile";
    return false;
  }
  return true;
}

}  // namespace andweorc::ingest
