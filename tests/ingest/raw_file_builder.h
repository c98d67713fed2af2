// raw_file_builder.h: builds raw runtime files (raw_format.h) for tests.
#ifndef ANDWEORC_TESTS_INGEST_RAW_FILE_BUILDER_H_
#define ANDWEORC_TESTS_INGEST_RAW_FILE_BUILDER_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "runtime/raw_format.h"

namespace andweorc::ingest::testing_raw {

namespace raw = andweorc::raw;

class RawFile {
 public:
  RawFile() {
    raw::FileHeader fh{};
    std::memcpy(fh.magic, raw::kMagic, sizeof fh.magic);
    fh.version = raw::kRawVersion;
    fh.header_size = sizeof fh;
    append(&fh, sizeof fh);
  }
  void record(uint32_t type, const void* body, size_t len) {
    raw::RecordHeader h{type, uint32_t(len)};
    append(&h, sizeof h);
    append(body, len);
    static const char zeros[8] = {};
    append(zeros, raw::padded8(uint32_t(len)) - len);
  }
  // A process record: this pid, a perf sampler at 1 ms, the executable.
  void process(int pid, const std::string& executable) {
    std::string body(sizeof(raw::ProcessRecord), '\0');
    raw::ProcessRecord pr{};
    pr.pid = pid;
    pr.sampler = raw::kSamplerPerf;
    pr.period_ns = 1000000;
    std::memcpy(body.data(), &pr, sizeof pr);
    body += executable;
    body.push_back('\0');
    record(raw::kProcess, body.data(), body.size());
  }
  // A label binding (raw::LabelBindingRecord + key + value, the key padded
  // to 8 bytes as the runtime writes it).
  void label_binding(uint64_t time_ns, uint64_t start, uint64_t end,
                     uint64_t table_start, uint64_t table_end,
                     uint32_t trampoline, const std::string& key,
                     const std::string& value) {
    raw::LabelBindingRecord rec{};
    rec.time_ns = time_ns;
    rec.start = start;
    rec.end = end;
    rec.table_start = table_start;
    rec.table_end = table_end;
    rec.trampoline = trampoline;
    rec.key_len = uint32_t(key.size());
    rec.value_len = uint32_t(value.size());
    std::string body(reinterpret_cast<char*>(&rec), sizeof rec);
    body += key + std::string(raw::padded8(rec.key_len) - key.size(), '\0');
    body += value;
    record(raw::kLabelBinding, body.data(), body.size());
  }
  void append(const void* p, size_t n) {
    bytes_.append(static_cast<const char*>(p), n);
  }
  const std::string& bytes() const { return bytes_; }
  std::string write(size_t keep = std::string::npos) const {
    char path[] = "/tmp/andweorc-raw-test-XXXXXX";
    int fd = mkstemp(path);
    std::string data = bytes_.substr(0, keep);
    EXPECT_EQ(::write(fd, data.data(), data.size()), ssize_t(data.size()));
    close(fd);
    return path;
  }
  size_t size() const { return bytes_.size(); }

 private:
  std::string bytes_;
};

}  // namespace andweorc::ingest::testing_raw

#endif  // ANDWEORC_TESTS_INGEST_RAW_FILE_BUILDER_H_
