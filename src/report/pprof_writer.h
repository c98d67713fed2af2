// pprof_writer.h: the profile as pprof's gzip-compressed profile.proto, for
// `go tool pprof`, Pyroscope, Parca and other pprof readers.
//
// Contract (see also docs/labels.md):
// - sample types ["samples","count"] and ["cpu","nanoseconds"] (default);
//   period_type ["cpu","nanoseconds"], period = the sample period;
// - one Sample per profile stack: location ids leaf first, values
//   [samples, samples x period], and one string label per application label
//   (key, value);
// - one Location per distinct machine frame: a frame with the frames inlined
//   into it, as several Lines (innermost first), with the Mapping of its
//   module (mapping ids by module, the main executable first); no addresses
//   (the profile keeps source locations only);
// - one Function per (name, file); frames without a name are named as in
//   frame_name.h;
// - ids start at 1; string_table[0] is "".
#ifndef ANDWEORC_REPORT_PPROF_WRITER_H_
#define ANDWEORC_REPORT_PPROF_WRITER_H_

#include <string>

#include "profile/profile.h"

namespace andweorc::report {

// The serialized (uncompressed) profile.proto message.
std::string pprof_message(const profile::Profile& p);

// gzip-compressed bytes of `data`; empty on a zlib failure.
std::string gzip(const std::string& data);

// gzip(pprof_message(p)): what goes in a .pb.gz file.
std::string pprof_gzipped(const profile::Profile& p);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_PPROF_WRITER_H_
