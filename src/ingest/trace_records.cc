// trace_records.cc: the runtime's --trace records (raw_format.h kTrace*)
// decoded into RawProcess.
#include <cstring>

#include "ingest/raw_reader.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {

void decode_trace_record(uint32_t type, const std::string& buf, size_t pos,
                         size_t end, RawProcess* out) {
  if (end > buf.size() || pos > end) return;
  switch (type) {
    case raw::kTraceNames: {
      raw::TraceName rec;
      if (end - pos < sizeof rec) return;
      std::memcpy(&rec, buf.data() + pos, sizeof rec);
      if (rec.name_len > end - pos - sizeof rec) return;
      out->trace_functions.push_back(RawTraceFunction{
          rec.function, buf.substr(pos + sizeof rec, rec.name_len),
          rec.enabled != 0});
      return;
    }
    case raw::kTraceCalls: {
      size_t n = (end - pos) / sizeof(raw::TraceCall);
      out->trace_calls.reserve(out->trace_calls.size() + n);
      for (size_t i = 0; i < n; ++i) {
        raw::TraceCall c;
        std::memcpy(&c, buf.data() + pos + i * sizeof c, sizeof c);
        out->trace_calls.push_back(
            RawTraceCall{c.tid, c.function, c.start_ns, c.end_ns, c.depth});
      }
      return;
    }
    case raw::kTraceStats: {
      raw::TraceStats st;
      if (end - pos < sizeof st) return;
      std::memcpy(&st, buf.data() + pos, sizeof st);
      out->trace_stats =
          RawTraceStats{st.ring_full, st.no_return, st.too_deep, st.reentered};
      return;
    }
    default:
      return;
  }
}

}  // namespace andweorc::ingest
