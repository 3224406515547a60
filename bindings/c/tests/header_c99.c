/* Compiled with -std=c99 -pedantic -Werror: floe.h must stay plain C99, and
 * must coexist with another copy of the Arrow C interface definitions. */
#include "floe.h"
#include "floe.h" /* include guards */

#ifndef ARROW_C_DATA_INTERFACE
#error floe.h must define the Arrow C data interface
#endif

int floe_header_c99_check(void);
int floe_header_c99_check(void) {
  struct ArrowArrayStream stream = {0};
  floe_status rc = FLOE_OK;
  return (int)rc + (stream.release == 0 ? 0 : 1) + FLOE_VERSION_MAJOR;
}
