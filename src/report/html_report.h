// html_report.h: the self-contained HTML report (`andweorc report -f html`).
//
// Contract: write_html writes one HTML5 document that needs nothing else:
// uPlot (the charting library, pinned in web/package-lock.json), our page
// script and style are embedded, and the data (html_data.h) sits in a
// <script type="application/json"> element written by json_for_script, so
// no string from the program or its sources can end the element. The page
// script builds the DOM with textContent only. A Content-Security-Policy
// forbids every network request, so the page works offline and cannot
// leak, and lets only the two embedded scripts run (by their SHA-256).
// Deterministic for a given profile and set of source files.
#ifndef ANDWEORC_REPORT_HTML_REPORT_H_
#define ANDWEORC_REPORT_HTML_REPORT_H_

#include <ostream>

#include "profile/profile.h"
#include "report/html_data.h"

namespace andweorc::report {

void write_html(const profile::Profile& p, std::ostream& out,
                const HtmlOptions& options = {});

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_REPORT_H_
