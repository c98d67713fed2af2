// live_page.h: the page `andweorc run --live` serves, one self-contained
// HTML document like the HTML report (uPlot and our script inline, no
// request but to its own /state).
#ifndef ANDWEORC_LIVE_LIVE_PAGE_H_
#define ANDWEORC_LIVE_LIVE_PAGE_H_

#include <string>

namespace andweorc::live {

// `title` names the program (escaped here).
std::string live_page(const std::string& title);

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LIVE_PAGE_H_
