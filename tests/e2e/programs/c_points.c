/* The public header compiles as C and counts from C code. */
#include <andweorc/andweorc.h>
#include <stdio.h>

int main(void) {
  for (int i = 0; i < 777; ++i) {
    ANDWEORC_BEGIN("c_txn");
    ANDWEORC_PROGRESS("c_item");
    ANDWEORC_END("c_txn");
  }
  ANDWEORC_PROGRESS_HERE();
  printf("c points done\n");
  return 0;
}
