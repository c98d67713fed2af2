// tty_render.h: the compact live terminal view (`run --live-tty`) as text:
// one live snapshot and a terminal size in, the frame's lines out. Pure (no
// terminal, no clock), so it is tested with golden text; tty_view.h draws it.
#ifndef ANDWEORC_LIVE_TTY_RENDER_H_
#define ANDWEORC_LIVE_TTY_RENDER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "live/live_model.h"

namespace andweorc::live {

struct TtyFrameOptions {
  size_t width = 80;   // columns; no line of the frame reaches the last one
  size_t height = 24;  // rows; the frame keeps one free for the cursor
  size_t top = 10;     // causal lines at most (fewer if the height is short)
  size_t top_functions = 5;  // sampling-profile functions at most
  bool final = false;        // the written profile's answer, not a tick
};

// The frame, top to bottom, without newlines or escapes; each line fits in
// width - 1 columns and there are at most height - 1 of them.
std::vector<std::string> render_tty(const LiveSnapshot& s,
                                    const TtyFrameOptions& o);

// "FILE:LINE" shortened from the left to `width` columns ("...e.cc:40"): the
// line number stays visible whatever the width. Other text is cut at the
// right ("transform_i...").
std::string shorten_label(const std::string& label, size_t width);

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_TTY_RENDER_H_
