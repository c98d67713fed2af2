// trace_json.h: the profile's optional "traces" section (--trace; since
// format 1.6), written and read next to the rest of profile_json.h.
#ifndef ANDWEORC_PROFILE_TRACE_JSON_H_
#define ANDWEORC_PROFILE_TRACE_JSON_H_

#include <nlohmann/json.hpp>

#include "profile/profile.h"

namespace andweorc::profile {

// Adds "traces" to `j` when the profile has any.
void write_traces(const Profile& p, nlohmann::ordered_json* j);

// Reads "traces" when present (older files have none); throws
// checked_json::Invalid naming the bad field. Needs p->stacks read first.
void read_traces(const nlohmann::json& doc, Profile* p);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_TRACE_JSON_H_
