// display.cc: number, path and column formatting for the text report.
#include "report/display.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace andweorc::report {
namespace {

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Byte offset just past the first `n` code points of `s`.
size_t prefix_bytes(std::string_view s, size_t n) {
  size_t i = 0;
  while (i < s.size() && n > 0) {
    ++i;
    while (i < s.size() && is_continuation(s[i])) ++i;
    --n;
  }
  return i;
}

bool needs_quotes(std::string_view a) {
  if (a.empty()) return true;
  for (char c : a) {
    bool safe =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9') ||
        std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    if (!safe) return true;
  }
  return false;
}

}  // namespace

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_share(double share) {
  if (!(share > 0)) return "0.0%";
  if (share < 0.0005) return "<0.1%";
  return fmt::format("{:.1f}%", share * 100);
}

std::string format_period(uint64_t ns) {
  struct Unit {
    uint64_t size;
    const char* name;
  };
  for (Unit u :
       {Unit{1000000000, "s"}, Unit{1000000, "ms"}, Unit{1000, "us"}}) {
    if (ns >= u.size) {
      if (ns % u.size == 0) return fmt::format("{} {}", ns / u.size, u.name);
      std::string v = fmt::format(
          "{:.3f}", static_cast<double>(ns) / static_cast<double>(u.size));
      v.erase(v.find_last_not_of('0') + 1);
      if (v.back() == '.') v.pop_back();
      return fmt::format("{} {}", v, u.name);
    }
  }
  return fmt::format("{} ns", ns);
}

std::string format_seconds(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  if (s < 60) return fmt::format("{:.2f} s", s);
  double minutes = std::floor(s / 60);
  return fmt::format("{:.0f} min {:.1f} s", minutes, s - minutes * 60);
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out.push_back(' ');
    if (!needs_quotes(a)) {
      out += a;
      continue;
    }
    out.push_back('\'');
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out.push_back(c);
      }
    }
    out.push_back('\'');
  }
  return out;
}

size_t display_width(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return !is_continuation(c); }));
}

std::string fit_right(std::string_view s, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return std::string(s);
  if (width <= 3) return std::string(width, '.');
  return std::string(s.substr(0, prefix_bytes(s, width - 3))) + "...";
}

std::string fit_left(std::string_view s, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return std::string(s);
  if (width <= 3) return std::string(width, '.');
  size_t drop = w - (width - 3);
  return "..." + std::string(s.substr(prefix_bytes(s, drop)));
}

std::string fit_middle(std::string_view s, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return std::string(s);
  if (width <= 3) return std::string(width, '.');
  size_t keep = width - 3;
  size_t head = keep / 2;
  size_t tail = keep - head;
  return std::string(s.substr(0, prefix_bytes(s, head))) + "..." +
         std::string(s.substr(prefix_bytes(s, w - tail)));
}

std::string short_function_name(std::string_view name, size_t width) {
  if (display_width(name) <= width) return std::string(name);
  std::string t = collapse_templates(name);
  if (display_width(t) > width) t = collapse_params(t);
  return fit_middle(t, width);
}

std::string collapse_templates(std::string_view name) {
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    // Copy operator tokens verbatim: "operator<<", "operator->", ...
    if (name.compare(i, 8, "operator") == 0) {
      size_t j = i + 8;
      while (j < name.size() && std::string_view("<>=-!").find(name[j]) !=
                                    std::string_view::npos) {
        ++j;
      }
      if (depth == 0) out += name.substr(i, j - i);
      i = j - 1;
      continue;
    }
    char ch = name[i];
    if (ch == '<') {
      if (depth == 0) out += "<...";
      ++depth;
    } else if (ch == '>') {
      if (depth == 0) return std::string(name);
      --depth;
      if (depth == 0) out.push_back('>');
    } else if (depth == 0) {
      out.push_back(ch);
    }
  }
  return depth == 0 ? out : std::string(name);
}

std::string collapse_params(std::string_view name) {
  std::string_view body = name;
  std::string_view suffix;
  for (std::string_view q : {" const", " &&", " &"}) {
    if (body.size() > q.size() && body.substr(body.size() - q.size()) == q) {
      suffix = name.substr(body.size() - q.size());
      body.remove_suffix(q.size());
      break;
    }
  }
  if (body.empty() || body.back() != ')') return std::string(name);
  int depth = 0;
  for (size_t i = body.size(); i-- > 0;) {
    if (body[i] == ')') ++depth;
    if (body[i] == '(' && --depth == 0) {
      if (i + 2 == body.size()) return std::string(name);  // already "()"
      return std::string(body.substr(0, i)) + "(...)" + std::string(suffix);
    }
  }
  return std::string(name);
}

std::string pad_right(std::string_view s, size_t width) {
  size_t w = display_width(s);
  std::string out(s);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string pad_left(std::string_view s, size_t width) {
  size_t w = display_width(s);
  std::string out = w < width ? std::string(width - w, ' ') : std::string();
  out += s;
  return out;
}

std::string common_dir(const std::vector<std::string>& paths) {
  if (paths.empty()) return "";
  // Longest common prefix, then back to the last '/' inside it.
  std::string_view prefix = paths[0];
  for (const auto& p : paths) {
    size_t n = 0;
    while (n < prefix.size() && n < p.size() && prefix[n] == p[n]) ++n;
    prefix = prefix.substr(0, n);
  }
  size_t slash = prefix.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "";
  return std::string(prefix.substr(0, slash + 1));
}

std::vector<std::string> wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t line_width = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view word = text.substr(i, j - i);
    i = j + 1;
    if (word.empty()) continue;
    size_t ww = display_width(word);
    if (line_width > 0 && line_width + 1 + ww > width) {
      lines.push_back(std::move(line));
      line.clear();
      line_width = 0;
    }
    if (line_width > 0) {
      line.push_back(' ');
      ++line_width;
    }
    line += word;
    line_width += ww;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string sampler_text(const profile::Profile& p) {
  const std::string& s = p.run.sampler;
  if (s == "none") return "none: no samples were taken";
  std::string name = s == "perf"    ? "perf (task-clock)"
                     : s == "timer" ? "timer (CPU-time)"
                     : s.empty()    ? "(unknown)"
                                    : s;
  if (p.run.sample_period_ns == 0) return name;
  return fmt::format("{}, every {} of CPU time per thread", name,
                     format_period(p.run.sample_period_ns));
}

}  // namespace andweorc::report
