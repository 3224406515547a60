/* Tests of metadata tables (floe_inspect), run by test_floe.c's main. */
#ifndef FLOE_TEST_INSPECT_H
#define FLOE_TEST_INSPECT_H

void test_inspect_snapshots(void);
void test_inspect_options(void);
void test_inspect_errors(void);
void test_inspect_every_kind(void);
void test_inspect_plan(void);

#endif
