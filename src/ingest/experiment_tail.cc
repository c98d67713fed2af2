// experiment_tail.cc: see experiment_tail.h.
#include "ingest/experiment_tail.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;

// Bytes read per file per poll: a program that samples many threads can
// append megabytes per second; the rest waits for the next poll.
constexpr uint64_t kMaxChunk = 16u << 20;

std::string read_from(const std::string& path, uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0 || uint64_t(size) <= offset) return {};
  uint64_t n = std::min<uint64_t>(uint64_t(size) - offset, kMaxChunk);
  std::string buf(n, '\0');
  in.seekg(std::streamoff(offset));
  in.read(buf.data(), std::streamsize(n));
  buf.resize(size_t(in.gcount()));
  return buf;
}

// The times and weights of a kSamples batch, without copying its frames
// (the progress line polls every 250 ms and needs only these); the same
// validity rule as decode_samples.
void add_sample_times(const std::string& buf, size_t pos, size_t end,
                      SampleTimeline* timeline) {
  while (pos + sizeof(raw::SampleHeader) <= end) {
    raw::SampleHeader sh;
    std::memcpy(&sh, buf.data() + pos, sizeof sh);
    pos += sizeof sh;
    size_t bytes = size_t(sh.nframes) * sizeof(uint64_t);
    if (sh.nframes == 0 || sh.nframes > raw::kMaxFrames || pos + bytes > end)
      return;  // corrupt batch: keep what we have
    timeline->add(sh.time_ns, sh.weight);
    pos += bytes;
  }
}

}  // namespace

std::vector<profile::Experiment> ExperimentTail::poll() {
  std::vector<profile::Experiment> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != raw::kRawSuffix) continue;
    FileState& state = files_[entry.path().string()];
    if (state.ignored) continue;
    read_new(entry.path().string(), &state);
    release(&state, &out);
  }
  return out;
}

void ExperimentTail::release(FileState* state,
                             std::vector<profile::Experiment>* out) {
  // In record order: a later experiment never overtakes an earlier one.
  size_t n = 0;
  for (FileState::Pending& p : state->pending) {
    uint64_t end = p.raw.start_ns + p.raw.duration_ns;
    bool ready = state->period_ns == 0 || state->ended || p.waited ||
                 state->timeline.latest() >= end + kSampleLagNs;
    if (!ready) break;
    out->push_back(to_experiment(p.raw, state->pid));
    out->back().cpu_s = experiment_cpu_s(state->timeline, state->period_ns,
                                         p.raw.start_ns, p.raw.duration_ns);
    // Experiments of a process do not overlap: what came before this one's
    // start is no later experiment's.
    state->timeline.drop_before(p.raw.start_ns);
    ++n;
  }
  state->pending.erase(state->pending.begin(), state->pending.begin() + n);
  for (FileState::Pending& p : state->pending) p.waited = true;
  uint64_t latest = state->timeline.latest();
  if (latest > kSampleHorizonNs)
    state->timeline.drop_before(latest - kSampleHorizonNs);
}

std::vector<RawPoint> ExperimentTail::point_totals() const {
  std::map<std::pair<std::string, uint32_t>, uint64_t> sum;
  for (const auto& [path, state] : files_)
    for (const RawPoint& p : state.points) sum[{p.name, p.kind}] += p.value;
  std::vector<RawPoint> out;
  for (const auto& [key, value] : sum)
    out.push_back(RawPoint{key.second, key.first, value});
  return out;
}

uint64_t ExperimentTail::threads() const {
  uint64_t n = 0;
  for (const auto& [path, state] : files_) n += state.threads;
  return n;
}

std::vector<ExperimentTail::ProcessSamples> ExperimentTail::take_samples() {
  std::vector<ProcessSamples> out;
  for (auto& [path, state] : files_) {
    if (state.samples.empty()) continue;
    out.push_back({state.pid, &state.maps, &state.label_tables,
                   std::move(state.samples)});
    state.samples.clear();
  }
  return out;
}

void ExperimentTail::read_new(const std::string& path, FileState* state) {
  std::string buf = read_from(path, state->offset);
  size_t pos = 0;
  if (state->offset == 0) {
    raw::FileHeader fh;
    if (buf.size() < sizeof fh) return;  // not written yet
    std::memcpy(&fh, buf.data(), sizeof fh);
    if (std::memcmp(fh.magic, raw::kMagic, sizeof fh.magic) != 0 ||
        fh.version != raw::kRawVersion) {
      state->ignored = true;
      return;
    }
    pos = std::max<size_t>(fh.header_size, sizeof fh);
  }
  while (pos + sizeof(raw::RecordHeader) <= buf.size()) {
    raw::RecordHeader rh;
    std::memcpy(&rh, buf.data() + pos, sizeof rh);
    if (rh.size > kMaxChunk - sizeof rh) {
      state->ignored = true;  // corrupt, or too large to ever fit a chunk
      break;
    }
    size_t body = pos + sizeof rh;
    size_t next = body + raw::padded8(rh.size);
    if (next > buf.size()) break;  // still being written, or cut by the chunk
    if (rh.type == raw::kProcess && rh.size >= sizeof(raw::ProcessRecord)) {
      raw::ProcessRecord pr;
      std::memcpy(&pr, buf.data() + body, sizeof pr);
      state->pid = pr.pid;
      state->period_ns = pr.period_ns;
    } else if (rh.type == raw::kSamples && keep_samples_) {
      size_t first = state->samples.size();
      decode_samples(buf, body, body + rh.size, &state->samples);
      for (size_t i = first; i < state->samples.size(); ++i)
        state->timeline.add(state->samples[i].time_ns,
                            state->samples[i].weight);
    } else if (rh.type == raw::kSamples) {
      add_sample_times(buf, body, body + rh.size, &state->timeline);
    } else if (rh.type == raw::kEnd) {
      state->ended = true;
    } else if (keep_samples_ && rh.type == raw::kMaps) {
      state->maps = buf.substr(body, rh.size);
    } else if (keep_samples_ && rh.type == raw::kLabelBinding) {
      // Only which code is label machinery: a binding per table, without
      // the labels (their bindings grow with the run).
      RawLabelBinding b;
      auto same_table = [&b](const RawLabelBinding& t) {
        return t.table_start == b.table_start && t.table_end == b.table_end;
      };
      if (decode_label_binding(buf, body, body + rh.size, &b) &&
          std::none_of(state->label_tables.begin(), state->label_tables.end(),
                       same_table)) {
        b.key.clear();
        b.value.clear();
        state->label_tables.push_back(std::move(b));
      }
    } else if (rh.type == raw::kThread) {
      raw::ThreadRecord tr;
      if (rh.size >= sizeof tr) {
        std::memcpy(&tr, buf.data() + body, sizeof tr);
        if (tr.event == raw::kThreadStart) ++state->threads;
      }
    } else if (rh.type == raw::kPoints) {
      decode_points(buf, body, body + rh.size, &state->points);
    } else if (rh.type == raw::kExperiment) {
      RawExperiment e;
      if (decode_experiment(buf, body, body + rh.size, &e))
        state->pending.push_back({std::move(e), false});
    }
    pos = next;
  }
  state->offset += pos;
}

}  // namespace andweorc::ingest
