/* Tests of host-driven I/O (floe_task_io_open, floe_task_needed_ranges,
 * floe_task_fill, floe_task_io_stream), run by test_floe.c's main. */
#ifndef FLOE_TEST_HOST_IO_H
#define FLOE_TEST_HOST_IO_H

void test_task_host_io(void);

#endif
