// coz_reader.h: Coz's profile.coz text -> a Profile (import).
//
// Contract:
//  - parse_coz never throws and never crashes on any input. It returns a
//    validated Profile or a one-line error "NAME: line N: PROBLEM".
//  - Records are lines of tab-separated `key=value` fields after a record
//    type (Coz's format); a line starting with '{' is the same record as a
//    JSON object with a "type" member (Coz's viewer accepts both).
//  - experiment: one Experiment at line granularity; Coz's `duration` is
//    already virtual (delays subtracted), so delay_s is 0. `speedup` is a
//    fraction 0..1 and becomes speedup_pct (rounded).
//  - throughput-point / progress-point and latency-point records belong to
//    the experiment before them. A latency point's `difference` (transactions
//    in flight at the experiment's end) is used for both ends.
//  - samples: per-location counts become one single-frame Stack per location
//    (Coz records no call stacks or function names); startup gives the start
//    time, runtime lines add up to the run's duration; shutdown is ignored.
//  - Rejected: unknown record types, missing or malformed fields, a record
//    cut short at the end of the input (truncated file), no records at all.
#ifndef ANDWEORC_PROFILE_COZ_READER_H_
#define ANDWEORC_PROFILE_COZ_READER_H_

#include <string_view>

#include "profile/profile_json.h"

namespace andweorc::profile {

ReadResult parse_coz(std::string_view text, std::string_view name = "<input>");

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_COZ_READER_H_
