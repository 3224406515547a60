/* A minimal test harness for the floe C API tests: CHECK records a failure
 * and carries on; each group runs on its own and the program exits nonzero
 * if any check failed. */
#ifndef FLOE_TEST_HARNESS_H
#define FLOE_TEST_HARNESS_H

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "floe.h"

extern atomic_int test_failures;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      atomic_fetch_add(&test_failures, 1);                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

/* CHECK_OK runs a floe call and reports floe_last_error when it fails. */
#define CHECK_OK(call)                                                      \
  do {                                                                      \
    floe_status rc_ = (call);                                               \
    if (rc_ != FLOE_OK) {                                                   \
      atomic_fetch_add(&test_failures, 1);                                  \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, \
              floe_status_name(rc_), floe_last_error());                    \
    }                                                                       \
  } while (0)

#define CHECK_STATUS(call, want)                                            \
  do {                                                                      \
    floe_status rc_ = (call);                                               \
    if (rc_ != (want)) {                                                    \
      atomic_fetch_add(&test_failures, 1);                                  \
      fprintf(stderr, "%s:%d: %s returned %s, want %s: %s\n", __FILE__, __LINE__, #call, \
              floe_status_name(rc_), floe_status_name(want), floe_last_error()); \
    }                                                                       \
  } while (0)

#define CHECK_EQ_I64(got, want)                                                       \
  do {                                                                                \
    long long g_ = (long long)(got), w_ = (long long)(want);                          \
    if (g_ != w_) {                                                                   \
      atomic_fetch_add(&test_failures, 1);                                            \
      fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
    }                                                                                 \
  } while (0)

#define CHECK_STR(got, want)                                                               \
  do {                                                                                     \
    const char* g_ = (got);                                                                \
    const char* w_ = (want);                                                               \
    if (g_ == NULL || strcmp(g_, w_) != 0) {                                               \
      atomic_fetch_add(&test_failures, 1);                                                 \
      fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got,      \
              g_ ? g_ : "(null)", w_);                                                     \
    }                                                                                      \
  } while (0)

/* One fixture table under testdata/fixtures, as tables.json describes it,
 * with the row count its engine's tests expect (INDEX.md). */
struct fixture {
  const char* name;
  const char* dir;      /* the fixture directory (the location map target) */
  const char* table;    /* the table directory, relative to dir ("" = dir) */
  const char* prefixes[2];
  int format_version;
  long long rows;       /* current snapshot, deletes applied */
};

extern const struct fixture fixtures[];
extern const int fixture_count;
extern char fixtures_root[4096];

const struct fixture* fixture_named(const char* name);
/* The table location and the options JSON (location map) for a fixture. */
void fixture_location(const struct fixture* f, char* buf, size_t n);
void fixture_options(const struct fixture* f, char* buf, size_t n);
/* Opens a fixture table or fails the test and returns NULL. */
floe_table* open_fixture(const char* name);

#endif
