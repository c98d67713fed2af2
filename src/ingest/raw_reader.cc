// raw_reader.cc: see raw_reader.h.
#include "ingest/raw_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ingest/raw_records.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;

template <typename T>
bool read_pod(const std::string& buf, size_t pos, size_t end, T* out) {
  if (pos + sizeof(T) > end) return false;
  std::memcpy(out, buf.data() + pos, sizeof(T));
  return true;
}

bool read_string(const std::string& buf, size_t* pos, size_t end, uint32_t len,
                 std::string* out) {
  if (*pos + len > end) return false;
  *out = buf.substr(*pos, len);
  *pos += raw::padded8(len);
  return true;
}

}  // namespace

void for_each_decoded_sample(const std::string& buf, size_t pos, size_t end,
                             RawSample* scratch,
                             const std::function<void(const RawSample&)>& fn) {
  while (pos + sizeof(raw::SampleHeader) <= end) {
    raw::SampleHeader sh;
    read_pod(buf, pos, end, &sh);
    pos += sizeof sh;
    size_t bytes = size_t(sh.nframes) * sizeof(uint64_t);
    if (sh.nframes == 0 || sh.nframes > raw::kMaxFrames || pos + bytes > end)
      return;  // corrupt batch: keep what we have
    RawSample& s = *scratch;
    s.tid = sh.tid;
    s.time_ns = sh.time_ns;
    s.weight = sh.weight == 0 ? 1 : sh.weight;
    s.from_timer = (sh.flags & raw::kSampleFromTimer) != 0;
    s.frames.resize(sh.nframes);
    std::memcpy(s.frames.data(), buf.data() + pos, bytes);
    pos += bytes;
    fn(s);
  }
}

void decode_samples(const std::string& buf, size_t pos, size_t end,
                    std::vector<RawSample>* out) {
  RawSample scratch;
  for_each_decoded_sample(buf, pos, end, &scratch,
                          [out](const RawSample& s) { out->push_back(s); });
}

bool decode_label_binding(const std::string& buf, size_t pos, size_t end,
                          RawLabelBinding* out) {
  raw::LabelBindingRecord r;
  if (!read_pod(buf, pos, end, &r)) return false;
  pos += sizeof r;
  RawLabelBinding b;
  b.time_ns = r.time_ns;
  b.start = r.start;
  b.end = r.end;
  b.table_start = r.table_start;
  b.table_end = r.table_end;
  b.trampoline = r.trampoline;
  if (!read_string(buf, &pos, end, r.key_len, &b.key)) return false;
  if (pos + r.value_len > end) return false;
  b.value = buf.substr(pos, r.value_len);
  if (b.start >= b.end) return false;  // not a code range: ignore
  *out = std::move(b);
  return true;
}

bool decode_points(const std::string& buf, size_t pos, size_t end,
                   std::vector<RawPoint>* out) {
  raw::PointsHeader ph;
  if (!read_pod(buf, pos, end, &ph)) return false;
  pos += sizeof ph;
  std::vector<RawPoint> points;
  for (uint32_t i = 0; i < ph.count; ++i) {
    raw::PointEntry e;
    if (!read_pod(buf, pos, end, &e)) return false;
    pos += sizeof e;
    if (pos + e.name_len > end) return false;
    points.push_back(RawPoint{e.kind, buf.substr(pos, e.name_len), e.value});
    pos += raw::padded8(e.name_len);
  }
  *out = std::move(points);
  return true;
}

bool decode_experiment(const std::string& buf, size_t pos, size_t end,
                       RawExperiment* out) {
  raw::ExperimentHeader h;
  if (!read_pod(buf, pos, end, &h)) return false;
  pos += sizeof h;
  RawExperiment e;
  e.start_ns = h.start_ns;
  e.duration_ns = h.duration_ns;
  e.delay_ns = h.delay_ns;
  e.selected_samples = h.selected_samples;
  e.speedup_pct = int(h.speedup_pct);
  e.function_granularity = h.granularity == 1;
  e.line = int(h.line);
  if (!read_string(buf, &pos, end, h.file_len, &e.file) ||
      !read_string(buf, &pos, end, h.function_len, &e.function))
    return false;
  for (uint32_t i = 0; i < h.npoints; ++i) {
    raw::ExperimentPoint p;
    if (!read_pod(buf, pos, end, &p)) return false;
    pos += sizeof p;
    RawExperimentPoint rp;
    if (!read_string(buf, &pos, end, p.name_len, &rp.name)) return false;
    rp.latency = p.kind != 1;  // ANDWEORC_KIND_THROUGHPUT
    rp.delta = p.delta;
    rp.departures = p.departures;
    rp.in_flight_start = p.in_flight_start;
    rp.in_flight_end = p.in_flight_end;
    e.points.push_back(std::move(rp));
  }
  // The optional trailer: the line's parents (raw_format.h).
  raw::ExperimentParents ps;
  if (read_pod(buf, pos, end, &ps)) {
    pos += sizeof ps;
    for (uint32_t i = 0; i < ps.count; ++i) {
      raw::ExperimentParent rp;
      RawExperiment::Parent parent;
      if (!read_pod(buf, pos, end, &rp)) return false;
      pos += sizeof rp;
      if (!read_string(buf, &pos, end, rp.function_len, &parent.function) ||
          !read_string(buf, &pos, end, rp.file_len, &parent.file))
        return false;
      e.parents.push_back(std::move(parent));
    }
  }
  // A speed-up outside 0..100 or a torn record is not a measurement.
  if (e.speedup_pct < 0 || e.speedup_pct > 100) return false;
  *out = std::move(e);
  return true;
}

namespace {

// out->maps was just read; time_ns is its kMapsTime (0: none, as from an
// older writer: it then counts as taken with the previous snapshot, so a file
// without times keeps the old rule, the last snapshot for every sample).
// Times only grow: the writer takes them under its I/O lock.
void add_maps_snapshot(RawProcess* out, uint64_t time_ns) {
  auto& history = out->maps_history;
  uint64_t previous = history.empty() ? 0 : history.back().time_ns;
  time_ns = std::max(time_ns, previous);
  if (!history.empty() && history.back().text == out->maps) {
    history.back().time_ns = time_ns;
    return;
  }
  history.push_back(RawMapsSnapshot{time_ns, out->maps});
}

}  // namespace

bool check_raw_header(const raw::FileHeader& fh, const std::string& path,
                      std::string* error) {
  if (std::memcmp(fh.magic, raw::kMagic, sizeof fh.magic) != 0) {
    *error = path + " is not an andweorc raw data file";
    return false;
  }
  if (fh.version != raw::kRawVersion) {
    *error = path + ": raw data version " + std::to_string(fh.version) +
             " does not match this andweorc (" +
             std::to_string(raw::kRawVersion) + ")";
    return false;
  }
  return true;
}

void apply_record(uint32_t type, const std::string& buf, size_t body,
                  size_t end, bool keep_samples, RawProcess* out,
                  uint64_t* maps_time) {
  const size_t size = end - body;
  switch (type) {
    case raw::kProcess: {
      raw::ProcessRecord pr;
      if (read_pod(buf, body, end, &pr)) {
        out->pid = pr.pid;
        out->ppid = pr.ppid;
        out->sampler = pr.sampler;
        out->period_ns = pr.period_ns;
        out->start_monotonic_ns = pr.start_monotonic_ns;
        out->start_realtime_ns = pr.start_realtime_ns;
        size_t s = body + sizeof pr;
        out->executable =
            std::string(buf.data() + s, strnlen(buf.data() + s, end - s));
      }
      break;
    }
    case raw::kMapsTime: {
      raw::MapsTimeRecord mt;
      if (read_pod(buf, body, end, &mt)) *maps_time = mt.time_ns;
      break;
    }
    case raw::kMaps:
      out->maps = buf.substr(body, size);
      add_maps_snapshot(out, *maps_time);
      *maps_time = 0;
      break;
    case raw::kSamples:
      if (keep_samples) decode_samples(buf, body, end, &out->samples);
      break;
    case raw::kThread: {
      raw::ThreadRecord tr;
      if (read_pod(buf, body, end, &tr) && tr.event == raw::kThreadStart)
        out->threads.push_back(tr.tid);
      break;
    }
    case raw::kPoints:
      decode_points(buf, body, end, &out->points);
      break;
    case raw::kLost: {
      raw::LostRecord lr;
      if (read_pod(buf, body, end, &lr)) out->lost_samples += lr.samples;
      break;
    }
    case raw::kNote:
      out->notes.push_back(buf.substr(body, size));
      break;
    case raw::kExperiment: {
      RawExperiment e;
      if (decode_experiment(buf, body, end, &e))
        out->experiments.push_back(std::move(e));
      break;
    }
    case raw::kLabelBinding: {
      RawLabelBinding b;
      if (decode_label_binding(buf, body, end, &b))
        out->label_bindings.push_back(std::move(b));
      break;
    }
    case raw::kTraceNames:
    case raw::kTraceCalls:
    case raw::kTraceStats:
      decode_trace_record(type, buf, body, end, out);
      break;
    case raw::kTree: {
      raw::TreeRecord tr;
      if (read_pod(buf, body, end, &tr)) {
        out->tree_experiments = int(tr.experiments);
        out->tree_flags = tr.flags;
      }
      break;
    }
    case raw::kCost: {
      raw::CostRecord cr;
      if (read_pod(buf, body, end, &cr)) {
        out->has_cost = true;
        out->process_cpu_ns = cr.process_cpu_ns;
        out->runtime_cpu_ns = cr.runtime_cpu_ns;
      }
      break;
    }
    case raw::kEnd: {
      raw::EndRecord er;
      if (read_pod(buf, body, end, &er)) out->end_ns = er.time_ns;
      out->clean_exit = true;
      break;
    }
    default:
      break;  // a newer writer's record type: skip it
  }
}

bool read_raw_file(const std::string& path, RawProcess* out,
                   std::string* error) {
  return read_raw_stream(path, /*keep_samples=*/true, out, error);
}

bool parse_raw_bytes(const std::string& buf, const std::string& path,
                     RawProcess* out, std::string* error) {
  raw::FileHeader fh;
  if (!read_pod(buf, 0, buf.size(), &fh)) fh = raw::FileHeader{};
  if (!check_raw_header(fh, path, error)) return false;
  *out = RawProcess{};
  out->path = path;
  size_t pos = std::max<size_t>(fh.header_size, sizeof fh);
  uint64_t maps_time = 0;  // from the kMapsTime before the next kMaps
  while (pos < buf.size()) {
    raw::RecordHeader rh;
    if (!read_pod(buf, pos, buf.size(), &rh) ||
        pos + sizeof rh + rh.size > buf.size()) {
      out->truncated = true;
      break;
    }
    size_t body = pos + sizeof rh;
    size_t end = body + rh.size;
    apply_record(rh.type, buf, body, end, /*keep_samples=*/true, out,
                 &maps_time);
    pos = body + raw::padded8(rh.size);
  }
  return true;
}

bool read_raw_dir(const std::string& dir, std::vector<RawProcess>* out,
                  std::string* error) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == raw::kRawSuffix)
      paths.push_back(entry.path().string());
  }
  if (ec) {
    *error = "cannot list " + dir + ": " + ec.message();
    return false;
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    RawProcess proc;
    if (!read_raw_stream(p, /*keep_samples=*/false, &proc, error)) return false;
    out->push_back(std::move(proc));
  }
  return true;
}

}  // namespace andweorc::ingest
