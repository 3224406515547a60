/* Streams read from threads other than the one that opened them, run by
 * test_floe.c's main. */
#ifndef FLOE_TEST_THREAD_HOP_H
#define FLOE_TEST_THREAD_HOP_H

void test_streams_across_threads(void);

#endif
