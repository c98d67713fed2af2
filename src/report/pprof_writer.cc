// pprof_writer.cc: see pprof_writer.h.
#include "report/pprof_writer.h"

#include <zlib.h>

#include <ctime>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "profile.pb.h"
#include "report/frame_name.h"

namespace andweorc::report {
namespace {

namespace pb = perftools::profiles;

class Builder {
 public:
  explicit Builder(const profile::Profile& p) : p_(p) {
    out_.add_string_table("");
    // The main executable gets mapping 1, as pprof expects.
    for (const auto& proc : p.processes) mapping_id(proc.executable);
  }

  int64_t str(const std::string& s) {
    auto [it, added] = strings_.try_emplace(s, out_.string_table_size());
    if (added) out_.add_string_table(s);
    return it->second;
  }

  uint64_t mapping_id(const std::string& module) {
    if (module.empty()) return 0;
    auto [it, added] = mappings_.try_emplace(module, mappings_.size() + 1);
    if (added) {
      pb::Mapping* m = out_.add_mapping();
      m->set_id(it->second);
      m->set_filename(str(module));
      m->set_has_functions(true);
      m->set_has_filenames(true);
      m->set_has_line_numbers(true);
      m->set_has_inline_frames(true);
    }
    return it->second;
  }

  uint64_t function_id(const profile::Frame& f) {
    std::string name = frame_name(f);
    auto [it, added] =
        functions_.try_emplace({name, f.file}, functions_.size() + 1);
    if (added) {
      pb::Function* fn = out_.add_function();
      fn->set_id(it->second);
      fn->set_name(str(name));
      fn->set_system_name(str(name));
      fn->set_filename(str(f.file));
    }
    return it->second;
  }

  // frames[begin, end): inlined frames then their concrete function.
  uint64_t location_id(const std::vector<uint32_t>& frames, size_t begin,
                       size_t end) {
    std::vector<uint32_t> key(frames.begin() + begin, frames.begin() + end);
    auto [it, added] = locations_.try_emplace(key, locations_.size() + 1);
    if (added) {
      pb::Location* loc = out_.add_location();
      loc->set_id(it->second);
      loc->set_mapping_id(mapping_id(p_.frames[key.back()].module));
      for (uint32_t f : key) {
        pb::Line* line = loc->add_line();
        line->set_function_id(function_id(p_.frames[f]));
        line->set_line(p_.frames[f].line);
      }
    }
    return it->second;
  }

  pb::Profile build() {
    uint64_t period = p_.run.sample_period_ns;
    add_type(out_.add_sample_type(), "samples", "count");
    add_type(out_.add_sample_type(), "cpu", "nanoseconds");
    add_type(out_.mutable_period_type(), "cpu", "nanoseconds");
    out_.set_period(int64_t(period));
    out_.set_default_sample_type(str("cpu"));
    out_.set_duration_nanos(int64_t(p_.run.duration_s * 1e9));
    out_.set_time_nanos(start_time_ns());
    for (const profile::Stack& s : p_.stacks) {
      if (s.samples == 0) continue;
      pb::Sample* sample = out_.add_sample();
      const auto& fr = s.frames;
      for (size_t begin = 0; begin < fr.size();) {
        size_t end = begin;
        // A location ends at the first frame that was not inlined.
        while (end + 1 < fr.size() && p_.frames[fr[end]].inlined) ++end;
        sample->add_location_id(location_id(fr, begin, end + 1));
        begin = end + 1;
      }
      sample->add_value(int64_t(s.samples));
      sample->add_value(int64_t(s.samples * period));
      for (uint32_t l : s.labels) {
        pb::Label* label = sample->add_label();
        label->set_key(str(p_.labels[l].key));
        label->set_str(str(p_.labels[l].value));
      }
    }
    out_.add_comment(str("andweorc " + p_.run.tool_version));
    return std::move(out_);
  }

 private:
  void add_type(pb::ValueType* t, const char* type, const char* unit) {
    t->set_type(str(type));
    t->set_unit(str(unit));
  }

  // run.start_time is "YYYY-MM-DDTHH:MM:SSZ"; 0 when absent or odd.
  int64_t start_time_ns() const {
    std::tm tm{};
    if (strptime(p_.run.start_time.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) ==
        nullptr)
      return 0;
    return int64_t(timegm(&tm)) * 1000000000;
  }

  const profile::Profile& p_;
  pb::Profile out_;
  std::unordered_map<std::string, int64_t> strings_;
  std::map<std::string, uint64_t> mappings_;
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;
  std::map<std::vector<uint32_t>, uint64_t> locations_;
};

}  // namespace

std::string pprof_message(const profile::Profile& p) {
  return Builder(p).build().SerializeAsString();
}

std::string gzip(const std::string& data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper rather than zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return "";
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  int rc = deflate(&z, Z_FINISH);
  size_t produced = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return "";
  out.resize(produced);
  return out;
}

std::string pprof_gzipped(const profile::Profile& p) {
  return gzip(pprof_message(p));
}

}  // namespace andweorc::report
