// linked_objects.h: the shared libraries an executable loads at start-up,
// found the way the dynamic loader finds them (its own `--list` mode, what
// ldd runs), so that probes can name functions and lines in them.
#ifndef ANDWEORC_PROBES_LINKED_OBJECTS_H_
#define ANDWEORC_PROBES_LINKED_OBJECTS_H_

#include <string>
#include <vector>

namespace andweorc::probes {

struct LinkedObject {
  std::string name;  // as the loader lists it (the DT_NEEDED name)
  std::string path;  // the file it loads (canonical)
};

struct LinkedObjects {
  std::vector<LinkedObject> libraries;  // in the loader's order
  std::vector<std::string> missing;     // DT_NEEDED names it cannot find
  std::string error;                    // why the list is empty, if it is
};

// Parses the loader's `--list` output ("\tlibfoo.so => /p/libfoo.so (0x..)",
// "\t/lib64/ld-linux-x86-64.so.2 (0x..)", "\tlibbar.so => not found"); the
// vDSO (no file) is left out, each file once.
LinkedObjects parse_loader_list(const std::string& text);

// The libraries `executable` (a canonical path) loads at start-up: its
// interpreter (PT_INTERP) run as `INTERP --list EXECUTABLE`, in the tool's
// environment (LD_LIBRARY_PATH included, as the program will get it); the
// loader maps the objects without running any of their code. Empty for a
// static executable. Cached per executable for the tool's life.
const LinkedObjects& linked_objects(const std::string& executable);

// The PT_INTERP (the dynamic loader's path) of ELF file `path`; "" for a
// static executable, a shared library, or a file libelf cannot read.
std::string interpreter_of(const std::string& path);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_LINKED_OBJECTS_H_
