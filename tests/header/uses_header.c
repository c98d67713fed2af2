/* uses_header.c: the public header compiles in C90-minded builds
 * (-Wdeclaration-after-statement -Werror): real C programs include it. */
#include <andweorc/andweorc.h>

int andweorc_header_check_c(void) {
  andweorc_label_t label;
  ANDWEORC_PROGRESS("done");
  ANDWEORC_BEGIN("query");
  ANDWEORC_END("query");
  andweorc_label_init(&label, "k", "v");
  andweorc_label_destroy(&label);
  return 0;
}
