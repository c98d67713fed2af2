// replay_main.cc: runs a fuzz target over files, without libFuzzer.
//
// Built with the ordinary compiler so ctest replays the checked-in corpus
// (fuzz/corpus/<target>/) on every build: each file, and each of its
// prefixes at a few cut points (truncated input is the commonest damage).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    run(bytes);
    for (size_t cut : {bytes.size() / 2, bytes.size() * 9 / 10,
                       bytes.size() > 0 ? bytes.size() - 1 : 0}) {
      run(bytes.substr(0, cut));
    }
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
