// shlib_work.cc: the shared library of shlib_user.cc (libshlib_work.so):
// functions probed and traced in a DSO (tests/e2e/shlib_probes_test.cc).
// Built -O2 -fno-optimize-sibling-calls, like traced.cc: every exit a ret.

static int g_sum = 0;  // file-local: no GOT load, the code is the library's

// Called once per unit by the program (through the PLT): the probe target.
__attribute__((noinline)) int dso_work(int x) {
  g_sum += x;  // DSO_WORK_LINE
  return g_sum * 3 + 1;
}

// Too short for the 5-byte jump (ret after 2 bytes): a patch refuses it,
// the fallback counts it.
__attribute__((noinline)) int dso_tiny(int x) { return x + 1; }
