/* The C API of an installed andweorc: a quick check that it links and that
 * a disabled run says why, without profiling. */
#include <andweorc/runner_c.h>
#include <stdio.h>

int main(void) {
  int status = andweorc_init(); /* ANDWEORC_ENABLED is not set: a no-op */
  andweorc_runner_t* r = andweorc_runner_new();
  andweorc_results_t* res = andweorc_runner_run(r, "anything");
  printf("init %d enabled %d ok %d: %s\n", status, andweorc_enabled(),
         andweorc_results_ok(res), andweorc_results_error(res));
  andweorc_results_free(res);
  andweorc_runner_free(r);
  return status == ANDWEORC_INIT_DISABLED ? 0 : 1;
}
