// raw_records.h: the record decoding raw_reader.cc and raw_stream.cc share
// (ingest-internal: callers use raw_reader.h).
#ifndef ANDWEORC_INGEST_RAW_RECORDS_H_
#define ANDWEORC_INGEST_RAW_RECORDS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "ingest/raw_reader.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {

// False, with a one-line *error, for a wrong magic or version.
bool check_raw_header(const raw::FileHeader& fh, const std::string& path,
                      std::string* error);

// Applies one record, buf[body, end) of type `type`, to *out. Samples are
// decoded into out->samples only with keep_samples. *maps_time carries a
// kMapsTime to the kMaps that follows it (start at 0).
void apply_record(uint32_t type, const std::string& buf, size_t body,
                  size_t end, bool keep_samples, RawProcess* out,
                  uint64_t* maps_time);

// Calls fn for each sample of one kSamples payload, buf[pos, end), decoded
// into *scratch (reused: no allocation per sample once its frames fit); a
// corrupt batch ends early.
void for_each_decoded_sample(const std::string& buf, size_t pos, size_t end,
                             RawSample* scratch,
                             const std::function<void(const RawSample&)>& fn);

// Reads the file at `path` record by record (memory: the largest record,
// not the file); keep_samples as for apply_record. Without keep_samples,
// out->samples_in_file is set and for_each_sample reads them later.
bool read_raw_stream(const std::string& path, bool keep_samples,
                     RawProcess* out, std::string* error);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_RAW_RECORDS_H_
