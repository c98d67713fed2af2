// labels_test.cc: andweorc::Label with the runtime linked in: apply's
// semantics, the trampoline pool (distinct trampolines, overflow, reuse,
// concurrent use) and the code the trampolines compile to.
#include <andweorc/andweorc.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr uint32_t kTrampolines = 1024;  // runtime/label_trampolines.h

TEST(Label, IsActiveWithTheRuntime) {
  andweorc::Label l("k", "v");
  EXPECT_TRUE(l.active());
}

TEST(Label, ApplyReturnsWhatTheCallableReturns) {
  andweorc::Label l("k", "v");
  EXPECT_EQ(l.apply([] { return 42; }), 42);
  int x = 1;
  int& r = l.apply([&]() -> int& { return x; });
  EXPECT_EQ(&r, &x);
  auto p = l.apply([] { return std::make_unique<int>(7); });  // move-only
  EXPECT_EQ(*p, 7);
  std::string s = l.apply([] { return std::string(1000, 'x'); });
  EXPECT_EQ(s.size(), 1000u);
  int calls = 0;
  l.apply([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

// Results in registers come back through the trampoline (every register
// class: rax, rax:rdx, xmm0, st0), whether the callable travels in the
// argument register (small temporaries) or by address.
TEST(Label, ApplyReturnsEveryRegisterClass) {
  andweorc::Label l("k", "v");
  double d = 2.5;
  long double ld = 1.25L;
  uint64_t big = 0x123456789abcdef0ull, a = 3, b = 4;
  EXPECT_EQ(l.apply([d] { return d * 2; }), 5.0);             // xmm0
  EXPECT_EQ(l.apply([&] { return float(d); }), 2.5f);         // by reference
  EXPECT_EQ(l.apply([&] { return ld * 2; }), 2.5L);           // st0
  EXPECT_EQ(l.apply([big] { return big; }), big);             // all 64 bits
  EXPECT_EQ(l.apply([&] { return a * b + big; }), big + 12);  // 24 bytes
  EXPECT_TRUE(l.apply([big] { return big != 0; }));           // bool
  EXPECT_EQ(l.apply([] { return -7; }), -7);                  // sign
  __int128 wide = (__int128(big) << 64) | 5;
  EXPECT_TRUE(l.apply([&] { return wide; }) == wide);  // rax:rdx
  EXPECT_EQ(l.apply([&] { return &d; }), &d);          // pointer
  enum class Color : uint8_t { kRed = 1, kBlue = 200 };
  EXPECT_EQ(l.apply([] { return Color::kBlue; }), Color::kBlue);
  int x = 1;
  int&& rr = l.apply([&]() -> int&& { return std::move(x); });
  EXPECT_EQ(&rr, &x);
  const int& cr = l.apply([&]() -> const int& { return x; });
  EXPECT_EQ(&cr, &x);
  // In memory (not a register type): a 24-byte aggregate.
  struct Three {
    uint64_t a, b, c;
  };
  Three t = l.apply([&] { return Three{a, b, big}; });
  EXPECT_EQ(t.a + t.b, 7u);
  EXPECT_EQ(t.c, big);
}

// A callable passed as an lvalue is called in place: a mutable one keeps
// its state changes (only temporaries are copied into a register).
TEST(Label, ApplyCallsAnLvalueInPlace) {
  andweorc::Label l("k", "v");
  auto counter = [n = 0]() mutable { return ++n; };
  EXPECT_EQ(l.apply(counter), 1);
  EXPECT_EQ(l.apply(counter), 2);
  EXPECT_EQ(counter(), 3);
  const auto fixed = [] { return 9; };
  EXPECT_EQ(l.apply(fixed), 9);
  int calls = 0;
  auto bump = [&calls] { ++calls; };
  l.apply(bump);
  l.apply(std::move(bump));
  EXPECT_EQ(calls, 2);
}

TEST(Label, ExceptionsPassThroughEitherWayOfPassingTheCallable) {
  andweorc::Label l("k", "v");
  int code = 4;
  // In a register (one capture) and by address (two captures).
  EXPECT_THROW(l.apply([code]() -> int { throw std::runtime_error("a"); }),
               std::runtime_error);
  EXPECT_THROW(l.apply([code, &l]() -> int { throw std::runtime_error("b"); }),
               std::runtime_error);
  EXPECT_EQ(l.apply([code] { return code; }), 4);
}

TEST(Label, ExceptionsPassThroughTheTrampoline) {
  andweorc::Label l("k", "v");
  EXPECT_THROW(l.apply([]() -> int { throw std::runtime_error("boom"); }),
               std::runtime_error);
  EXPECT_EQ(l.apply([] { return 3; }), 3);  // still usable afterwards
}

TEST(Label, MovesItsTrampoline) {
  andweorc::Label a("k", "v");
  andweorc::Label b(std::move(a));
  EXPECT_TRUE(b.active());
  EXPECT_FALSE(a.active());  // NOLINT(bugprone-use-after-move): by design
  EXPECT_EQ(a.apply([] { return 1; }) + b.apply([] { return 2; }), 3);
}

TEST(Label, Nests) {
  andweorc::Label outer("tenant", "a"), inner("request", "17");
  int v = outer.apply([&] { return inner.apply([] { return 5; }) + 1; });
  EXPECT_EQ(v, 6);
}

TEST(LabelPool, HandsOutDistinctTrampolinesThenOverflowsThenReuses) {
  // Up to kTrampolines - 1 labels get their own trampoline (0 is the shared
  // overflow one); tests in this binary hold none at this point.
  std::vector<andweorc_label_t> labels(kTrampolines + 10);
  std::set<uint32_t> indices;
  std::set<void*> trampolines;
  size_t overflowed = 0;
  for (auto& l : labels) {
    andweorc_label_init(&l, "k", "v");
    ASSERT_NE(l.trampoline, nullptr);
    if (l.index == 0) {
      ++overflowed;
    } else {
      EXPECT_TRUE(indices.insert(l.index).second) << "index handed out twice";
      trampolines.insert(reinterpret_cast<void*>(l.trampoline));
    }
  }
  EXPECT_EQ(indices.size(), kTrampolines - 1);
  EXPECT_EQ(trampolines.size(), kTrampolines - 1);  // distinct addresses
  EXPECT_EQ(overflowed, 11u);
  // An overflowed label still runs its work.
  int ran = 0;
  andweorc_label_apply(
      &labels.back(), [](void* p) { ++*static_cast<int*>(p); }, &ran);
  EXPECT_EQ(ran, 1);
  // Returning one makes it available again.
  uint32_t freed = labels[3].index;
  andweorc_label_destroy(&labels[3]);
  andweorc_label_t again;
  andweorc_label_init(&again, "k", "w");
  EXPECT_EQ(again.index, freed);
  andweorc_label_destroy(&again);
  andweorc_label_destroy(&again);  // twice: harmless
  for (size_t i = 0; i < labels.size(); ++i)
    if (i != 3) andweorc_label_destroy(&labels[i]);
}

TEST(LabelPool, ConcurrentUseNeverSharesATrampoline) {
  // Each live index is owned by one label at a time.
  static std::array<std::atomic<int>, kTrampolines> owners{};
  std::atomic<int> conflicts{0};
  auto churn = [&] {
    for (int i = 0; i < 20000; ++i) {
      andweorc_label_t l;
      andweorc_label_init(&l, "k", "v");
      if (l.index != 0 && owners[l.index].exchange(1) != 0) ++conflicts;
      int out = 0;
      andweorc_label_apply(
          &l, [](void* p) { *static_cast<int*>(p) = 1; }, &out);
      if (out != 1) ++conflicts;
      if (l.index != 0) owners[l.index].store(0);
      andweorc_label_destroy(&l);
    }
  };
  std::thread a(churn), b(churn), c(churn);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(conflicts.load(), 0);
}

TEST(LabelPoint, CountsPerLabelWithoutCrashing) {
  andweorc::Label a("endpoint", "a"), b("endpoint", "b");
  for (int i = 0; i < 1000; ++i) {
    a.progress("requests");
    b.progress("requests");
    a.begin("latency");
    a.end("latency");
  }
  SUCCEED() << "totals are checked end to end (tests/e2e/labels_test.cc)";
}

// ---- the code the trampolines compile to ----

std::string run(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

// Function name -> its disassembly lines.
std::vector<std::pair<std::string, std::vector<std::string>>> functions_in(
    const std::string& text) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    // A header is "ADDR <name>:" alone on its line; an instruction line
    // (tab-separated) may name a symbol with ">:" inside ("<...>::type").
    size_t lt = line.find(" <"), gt = line.rfind(">:");
    if (line.find('\t') == std::string::npos && lt != std::string::npos &&
        gt != std::string::npos && gt > lt && gt + 2 == line.size())
      out.push_back({line.substr(lt + 2, gt - lt - 2), {}});
    else if (!out.empty() && line.find('\t') != std::string::npos)
      out.back().second.push_back(line);
  }
  return out;
}

bool has_instruction(const std::vector<std::string>& lines, const char* op) {
  for (const auto& l : lines) {
    size_t tab = l.rfind('\t');
    if (tab != std::string::npos && l.compare(tab + 1, strlen(op), op) == 0)
      return true;
  }
  return false;
}

TEST(LabelCode, EveryTrampolineCallsAndKeepsAFrame) {
  auto fns = functions_in(
      run("objdump -d --no-show-raw-insn -j andweorc_trampolines " +
          std::string(ANDWEORC_RUNTIME_LIB)));
  std::set<std::string> names;
  for (const auto& [name, lines] : fns) {
    // Only trampolines in the section: the tool hides all of it.
    EXPECT_EQ(name.rfind("andweorc_label_trampoline_", 0), 0u) << name;
    names.insert(name);
    // An indirect call (never a jump: a tail call would leave no return
    // address inside the trampoline), and frames.
    EXPECT_TRUE(has_instruction(lines, "call   *")) << name;
    EXPECT_FALSE(has_instruction(lines, "jmp")) << name;
    EXPECT_TRUE(has_instruction(lines, "push   %rbp")) << name;
  }
  EXPECT_EQ(names.size(), kTrampolines);
}

[[gnu::noipa]] int labelled_work(const andweorc::Label& l, int x) {
  return l.apply([x] { return x * 3 + 1; });
}

TEST(LabelCode, ApplyCallsThroughTheTrampoline) {
  EXPECT_EQ(labelled_work(andweorc::Label("k", "v"), 2), 7);
  std::string self =
      run("readlink -f /proc/" + std::to_string(getpid()) + "/exe");
  while (!self.empty() && self.back() == '\n') self.pop_back();
  std::string text = run("objdump -d -C --no-show-raw-insn " + self);
  auto fns = functions_in(text);
  bool found = false;
  for (const auto& [name, lines] : fns) {
    if (name !=
        "(anonymous namespace)::labelled_work(andweorc::Label "
        "const&, int)")
      continue;
    found = true;
    // The label's trampoline pointer is called (indirectly), so the
    // trampoline's frame is on the stack while the work runs.
    EXPECT_TRUE(has_instruction(lines, "call   *")) << name;
  }
  EXPECT_TRUE(found) << "labelled_work not found in " << self;
}

}  // namespace
