// fuzz_raw_reader.cc: the runtime's raw record reader on any bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ingest/raw_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string buf(reinterpret_cast<const char*>(data), size);
  andweorc::ingest::RawProcess process;
  std::string error;
  andweorc::ingest::parse_raw_bytes(buf, "fuzz.awr", &process, &error);
  return 0;
}
