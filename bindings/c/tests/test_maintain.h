/* Tests of floe_table_maintain, run by test_floe.c's main. */
#ifndef FLOE_TEST_MAINTAIN_H
#define FLOE_TEST_MAINTAIN_H

void test_maintain_compact_and_stats(void);
void test_maintain_errors(void);

#endif
