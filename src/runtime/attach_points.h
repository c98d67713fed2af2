// attach_points.h: progress points of andweorc.h that a process reached
// before `andweorc attach` loaded the runtime, made live again.
//
// A point looks the runtime up at its first visit and, when it is absent,
// remembers that (its site's id becomes -1, its translation unit's lookup
// flag 1): one predictable branch per visit in a program never profiled.
// Under `run` the runtime is there from the start; an attach comes later,
// so without this a long-running program's points stay dead. The header's
// statics have names the symbol table keeps (andweorc_site_,
// andweorc_looked_up_): each loaded object's .symtab, read from its file,
// gives their addresses; flags are cleared before sites (x86 keeps stores
// in order: a thread that sees a site's 0 sees the flag's 0 and looks the
// runtime up again). A site is written only when it looks like one (kind
// 1-3, id -1) inside a writable segment of its object. Stripped objects
// (no .symtab), Coz's header and labels' points (in the heap) are not
// revived: --progress covers those (docs/attach.md).
#ifndef ANDWEORC_RUNTIME_ATTACH_POINTS_H_
#define ANDWEORC_RUNTIME_ATTACH_POINTS_H_

namespace andweorc::runtime {

struct RevivedPoints {
  int sites = 0;    // sites set back from -1 to 0
  int lookups = 0;  // lookup flags cleared
};

// Not signal-safe (opens and maps files). From runtime_attach_start.
RevivedPoints revive_header_points();
// The same, and a note in the profile saying how many (none: no note).
void revive_header_points_with_note();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_ATTACH_POINTS_H_
