/* Tests of runtime filters (floe_scan_add_filter) and scan metrics
 * (floe_scan_metrics), run by test_floe.c's main. */
#ifndef FLOE_TEST_FILTERS_H
#define FLOE_TEST_FILTERS_H

void test_add_filter_narrows(void);
void test_add_filter_errors(void);
void test_metrics(void);
void test_add_filter_while_streaming(void);

#endif
