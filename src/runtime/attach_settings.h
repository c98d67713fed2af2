// attach_settings.h: the runtime's settings when `andweorc attach` loaded it
// into a running process. That process's environment is not ours, so the
// tool writes the ANDWEORC_* settings to a file; every reader of a setting
// asks runtime_setting(), which answers from that file once it is loaded and
// from the environment otherwise (preload, linked mode).
#ifndef ANDWEORC_RUNTIME_ATTACH_SETTINGS_H_
#define ANDWEORC_RUNTIME_ATTACH_SETTINGS_H_

namespace andweorc::runtime {

// Reads "NAME=value\0" entries (the layout of /proc/PID/environ, so values
// may hold newlines) from `path`. False when the file cannot be read, is
// empty or is larger than the store (64 KiB). Replaces earlier settings.
// Not signal-safe; call only while no thread of ours reads settings.
bool attach_settings_load(const char* path);

// The value of `name`: from the loaded file if there is one (nullptr if the
// file does not set it; the environment is then not consulted), else
// getenv(name). Not signal-safe.
const char* runtime_setting(const char* name);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_ATTACH_SETTINGS_H_
