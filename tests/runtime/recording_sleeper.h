// recording_sleeper.h: the delay engine tests' injected sleeper. Records
// every sleep it is asked for and returns it plus an overshoot; with
// `clock` set, a sleep also moves that injected clock (time passes while a
// thread pays).
#ifndef ANDWEORC_TESTS_RUNTIME_RECORDING_SLEEPER_H_
#define ANDWEORC_TESTS_RUNTIME_RECORDING_SLEEPER_H_

#include <stdint.h>

#include <vector>

#include "runtime/delay_engine.h"

namespace andweorc::runtime {

struct RecordingSleeper {
  uint64_t overshoot = 0;
  uint64_t* clock = nullptr;
  std::vector<uint64_t> asked;
  static uint64_t sleep(void* ctx, uint64_t ns) {
    auto* self = static_cast<RecordingSleeper*>(ctx);
    self->asked.push_back(ns);
    if (self->clock != nullptr) *self->clock += ns + self->overshoot;
    return ns + self->overshoot;
  }
  Sleeper sleeper() { return Sleeper{&RecordingSleeper::sleep, this}; }
};

}  // namespace andweorc::runtime

#endif  // ANDWEORC_TESTS_RUNTIME_RECORDING_SLEEPER_H_
