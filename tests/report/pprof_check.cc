// pprof_check.cc: see pprof_check.h.
#include "pprof_check.h"

#include <zlib.h>

#include <set>

#include "profile.pb.h"

namespace andweorc::testing {
namespace {

namespace pb = perftools::profiles;

bool gunzip(const std::string& in, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  char buf[1 << 16];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out->append(buf, sizeof buf - z.avail_out);
  } while (rc != Z_STREAM_END);
  inflateEnd(&z);
  return rc == Z_STREAM_END;
}

}  // namespace

PprofSummary check_pprof(const std::string& gzipped) {
  PprofSummary s;
  auto fail = [&](std::string why) {
    if (s.error.empty()) s.error = std::move(why);
  };
  std::string bytes;
  if (!gunzip(gzipped, &bytes)) {
    fail("not gzip data");
    return s;
  }
  pb::Profile p;
  if (!p.ParseFromString(bytes)) {
    fail("not a profile.proto message");
    return s;
  }
  int64_t nstr = p.string_table_size();
  auto str_ok = [&](int64_t i) { return i >= 0 && i < nstr; };
  auto str = [&](int64_t i) { return str_ok(i) ? p.string_table(int(i)) : ""; };
  if (nstr == 0 || !p.string_table(0).empty())
    fail("string_table[0] is not \"\"");

  std::set<uint64_t> mappings, functions;
  std::map<uint64_t, const pb::Location*> locations;
  for (const auto& m : p.mapping()) {
    if (m.id() == 0 || !mappings.insert(m.id()).second)
      fail("mapping id zero or repeated");
    if (!str_ok(m.filename())) fail("mapping filename out of range");
  }
  std::map<uint64_t, std::string> function_names;
  for (const auto& f : p.function()) {
    if (f.id() == 0 || !functions.insert(f.id()).second)
      fail("function id zero or repeated");
    if (!str_ok(f.name()) || !str_ok(f.system_name()) || !str_ok(f.filename()))
      fail("function string out of range");
    function_names[f.id()] = str(f.name());
  }
  for (const auto& l : p.location()) {
    if (l.id() == 0 || !locations.emplace(l.id(), &l).second)
      fail("location id zero or repeated");
    if (l.mapping_id() != 0 && !mappings.count(l.mapping_id()))
      fail("location refers to a missing mapping");
    if (l.line_size() == 0) fail("location without lines");
    for (const auto& line : l.line())
      if (!functions.count(line.function_id()))
        fail("line refers to a missing function");
  }
  s.sample_types = size_t(p.sample_type_size());
  int samples_index = -1, cpu_index = -1;
  for (int i = 0; i < p.sample_type_size(); ++i) {
    const auto& t = p.sample_type(i);
    if (!str_ok(t.type()) || !str_ok(t.unit())) fail("sample type string");
    if (str(t.type()) == "samples" && str(t.unit()) == "count")
      samples_index = i;
    if (str(t.type()) == "cpu" && str(t.unit()) == "nanoseconds") cpu_index = i;
  }
  if (samples_index < 0 || cpu_index < 0)
    fail("sample types lack samples/count or cpu/nanoseconds");
  s.period = p.period();
  for (const auto& smp : p.sample()) {
    if (smp.value_size() != p.sample_type_size()) {
      fail("sample value count differs from sample_type count");
      continue;
    }
    for (uint64_t id : smp.location_id())
      if (!locations.count(id)) fail("sample refers to a missing location");
    if (samples_index < 0 || cpu_index < 0) continue;
    int64_t n = smp.value(samples_index);
    s.samples += n;
    s.cpu_ns += smp.value(cpu_index);
    std::string leaf = "[none]";
    if (smp.location_id_size() > 0 && locations.count(smp.location_id(0))) {
      const pb::Location* loc = locations[smp.location_id(0)];
      if (loc->line_size() > 0)  // the innermost line is the leaf function
        leaf = function_names[loc->line(0).function_id()];
    }
    s.leaf_samples[leaf] += n;
    for (const auto& label : smp.label()) {
      if (!str_ok(label.key()) || !str_ok(label.str()))
        fail("label string out of range");
      s.label_leaf_samples[str(label.key()) + "=" + str(label.str())][leaf] +=
          n;
    }
  }
  return s;
}

}  // namespace andweorc::testing
