/* A host that runs for hours: one process opens, scans (plain, filtered,
 * with deletes, parallel, cancelled part way) and commits OPS times
 * against local fixture tables and a table on S3 (a versitygw this
 * program starts on 127.0.0.1), sampling RSS, open file descriptors and
 * floe_runtime_stats every OPS/20 operations. After the warm-up (the first
 * fifth) every measure must stay flat; the samples are printed.
 *
 *   test_soak FIXTURES_DIR [OPS]      (OPS: 10000 by default)
 *
 * versitygw is $FLOE_VERSITYGW or found on PATH; without it the S3
 * operations are skipped, unless FLOE_REQUIRE_S3=1 (then it fails). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arrow_read.h"
#include "harness.h"

extern char** environ;

atomic_int test_failures;

static const char* const schema =
    "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": ["
    "{\"id\": 1, \"name\": \"id\", \"required\": false, \"type\": \"long\"}]}";

#define RSS_SLACK (48LL << 20)
#define FD_SLACK 4
#define GOROUTINE_SLACK 8

/* ---- the process's own figures ---------------------------------------- */

static long long rss_bytes(void) {
  long long pages = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == NULL) return -1;
  if (fscanf(f, "%lld %lld", &pages, &resident) != 2) resident = -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

static int open_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return -1;
  int n = 0;
  while (readdir(d) != NULL) n++;
  closedir(d);
  return n - 3; /* ".", ".." and the directory itself */
}

/* A number from floe_runtime_stats's JSON. */
static long long stat_of(const char* json, const char* key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char* at = strstr(json, pattern);
  return at ? atoll(at + strlen(pattern)) : -1;
}

struct sample {
  int ops;
  long long rss, goroutines, handles, batches, heap, export_bytes;
  int fds;
};

static struct sample take_sample(int ops) {
  struct sample s = {ops, rss_bytes(), 0, 0, 0, 0, 0, open_fds()};
  char* json = NULL;
  CHECK_OK(floe_runtime_stats(&json));
  if (json != NULL) {
    s.goroutines = stat_of(json, "goroutines");
    s.handles = stat_of(json, "handles");
    s.batches = stat_of(json, "batches");
    s.heap = stat_of(json, "heap_alloc_bytes");
    s.export_bytes = stat_of(json, "export_bytes");
    floe_string_free(json);
  }
  return s;
}

/* ---- versitygw ---------------------------------------------------------- */

static pid_t server = 0;
static char s3_root[4096], s3_options[1024];

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr*)&a, &n) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  close(fd);
  return ntohs(a.sin_port);
}

static int answering(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int ok = fd >= 0 && connect(fd, (struct sockaddr*)&a, sizeof a) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

/* Starts versitygw (posix backend, bucket "soak") with posix_spawn: the Go
 * runtime of libfloe does not survive fork, and posix_spawn execs at
 * once. Returns 0 when there is no server to start. */
static int start_s3(void) {
  const char* bin = getenv("FLOE_VERSITYGW");
  if (bin == NULL || *bin == 0) bin = "versitygw";
  const char* tmp = getenv("TMPDIR");
  snprintf(s3_root, sizeof s3_root, "%s/floe-soak-s3-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(s3_root) == NULL) return 0;
  char bucket[4200];
  snprintf(bucket, sizeof bucket, "%s/soak", s3_root);
  mkdir(bucket, 0755);
  int port = free_port();
  char listen[64];
  snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
  char* argv[] = {(char*)bin, "--port", listen, "--quiet", "posix", s3_root, NULL};
  setenv("ROOT_ACCESS_KEY_ID", "soakaccess", 1);
  setenv("ROOT_SECRET_ACCESS_KEY", "soaksecret0123456789", 1);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  int spawned = posix_spawnp(&server, bin, &quiet, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) {
    server = 0;
    return 0;
  }
  for (int i = 0; i < 3000 && !answering(port); i++) {
    int status;
    if (waitpid(server, &status, WNOHANG) == server) {
      server = 0;
      return 0;
    }
    usleep(10000);
  }
  snprintf(s3_options, sizeof s3_options,
           "{\"s3\": {\"endpoint\": \"http://127.0.0.1:%d\", \"region\": \"us-east-1\", \"access_key_id\": "
           "\"soakaccess\", \"secret_access_key\": \"soaksecret0123456789\", \"path_style\": true}}",
           port);
  return 1;
}

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void stop_s3(void) {
  if (server > 0) {
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
  }
  if (s3_root[0]) nftw(s3_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the operations ----------------------------------------------------- */

static long long stream_rows(floe_table* t, const char* scan_json) {
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, scan_json, &s));
  if (s == NULL) return -1;
  struct ArrowArrayStream st;
  long long rows = -1;
  CHECK_OK(floe_scan_stream(s, &st));
  floe_scan_free(s); /* the stream outlives the scan */
  if (st.release != NULL) {
    rows = stream_count_rows(&st, NULL);
    if (st.release != NULL) st.release(&st);
  }
  return rows;
}

static long long scan_fixture(const char* name, const char* scan_json) {
  floe_table* t = open_fixture(name);
  if (t == NULL) return -1;
  long long rows = stream_rows(t, scan_json);
  floe_table_free(t);
  return rows;
}

/* Opens a scan, reads one batch, cancels it from this thread and reads on:
 * the stream ends in ECANCELED. */
static void cancelled_scan(void) {
  floe_table* t = open_fixture("impala_iceberg_partitioned");
  if (t == NULL) return;
  floe_scan* s = NULL;
  CHECK_OK(floe_scan_open(t, "{\"threads\": 2, \"batch_size\": 1}", &s));
  struct ArrowArrayStream st;
  if (s != NULL && floe_scan_stream(s, &st) == FLOE_OK) {
    struct ArrowArray a;
    CHECK(st.get_next(&st, &a) == 0 && a.release != NULL);
    if (a.release) a.release(&a);
    CHECK_OK(floe_scan_cancel(s));
    int rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++) {
      rc = st.get_next(&st, &a);
      if (rc == 0 && a.release == NULL) break;
      if (rc == 0) a.release(&a);
    }
    CHECK(rc == ECANCELED);
    st.release(&st);
  }
  floe_scan_free(s);
  floe_table_free(t);
}

static int commits[2];

static void commit(const char* location, const char* options, int which) {
  floe_table* t = NULL;
  CHECK_OK(floe_table_open(location, options, &t));
  if (t == NULL) return;
  char row[64], commit_json[128];
  snprintf(row, sizeof row, "{\"id\": %d}\n", commits[which]);
  snprintf(commit_json, sizeof commit_json, "{\"token\": \"soak-%d-%d\"}", which, commits[which]);
  struct ArrowArrayStream in;
  int64_t id = 0;
  CHECK_OK(floe_json_rows_stream(t, row, strlen(row), &in));
  CHECK_OK(floe_append(t, &in, commit_json, &id));
  if (commits[which] % 50 == 49) { /* keep the metadata small, as a real job does */
    char* result = NULL;
    CHECK_OK(floe_expire_snapshots(t, "{\"older_than_ms\": 4611686018427387904, \"retain_last\": 5}", &result));
    floe_string_free(result);
  }
  commits[which]++;
  floe_table_free(t);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FIXTURES_DIR [OPS]\n", argv[0]);
    return 2;
  }
  snprintf(fixtures_root, sizeof fixtures_root, "%s", argv[1]);
  int ops = argc > 2 ? atoi(argv[2]) : 10000;
  int every = ops / 20 > 0 ? ops / 20 : 1;

  int s3 = start_s3();
  if (!s3) {
    const char* req = getenv("FLOE_REQUIRE_S3");
    if (req && strcmp(req, "1") == 0) {
      fprintf(stderr, "versitygw did not start ($FLOE_VERSITYGW or PATH) and FLOE_REQUIRE_S3=1\n");
      stop_s3();
      return 1;
    }
    fprintf(stderr, "versitygw not found: the S3 operations are skipped\n");
  }
  char dir[4096], local[4200];
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/floe-soak-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(local, sizeof local, "%s/events", dir);
  const char* remote = "s3://soak/events";
  floe_table* t = NULL;
  CHECK_OK(floe_table_create(local, schema, NULL, &t));
  floe_table_free(t);
  if (s3) {
    t = NULL;
    CHECK_OK(floe_table_create(remote, schema, s3_options, &t));
    floe_table_free(t);
  }

  struct sample* samples = calloc((size_t)(ops / every + 1), sizeof *samples);
  int n = 0;
  for (int i = 0; i < ops && atomic_load(&test_failures) == 0; i++) {
    switch (i % 8) {
      case 0: CHECK_EQ_I64(scan_fixture("impala_iceberg_partitioned", NULL), 20); break;
      case 1: CHECK_EQ_I64(scan_fixture("impala_iceberg_partitioned", "{\"filter\": \"id > 10\", \"columns\": [\"id\"]}"), 10); break;
      case 2: CHECK_EQ_I64(scan_fixture("impala_iceberg_v2_partitioned_position_deletes", NULL), 10); break;
      case 3:
        CHECK_EQ_I64(scan_fixture("duckdb_lineitem_iceberg", "{\"columns\": [\"l_orderkey\", \"l_quantity\"], \"threads\": 2}"), 51793);
        break;
      case 4: commit(local, NULL, 0); break;
      case 5:
        if (s3) {
          t = NULL;
          CHECK_OK(floe_table_open(remote, s3_options, &t));
          /* The table gains a file a commit: a limit keeps the read's cost flat. */
          if (t) CHECK_EQ_I64(stream_rows(t, "{\"threads\": 2, \"limit\": 5}"), commits[1] < 5 ? commits[1] : 5);
          floe_table_free(t);
        }
        break;
      case 6:
        if (s3) commit(remote, s3_options, 1);
        break;
      default: cancelled_scan(); break;
    }
    if ((i + 1) % every == 0) samples[n++] = take_sample(i + 1);
  }

  printf("soak: %d operations (%d local and %d S3 commits)\n", ops, commits[0], commits[1]);
  printf("%7s %8s %4s %10s %7s %7s %11s %10s\n", "ops", "RSS MiB", "fds", "goroutines", "handles", "batches",
         "Go heap MiB", "export MiB");
  for (int i = 0; i < n; i++) {
    struct sample* s = &samples[i];
    printf("%7d %8.1f %4d %10lld %7lld %7lld %11.1f %10.1f\n", s->ops, s->rss / 1048576.0, s->fds, s->goroutines,
           s->handles, s->batches, s->heap / 1048576.0, s->export_bytes / 1048576.0);
  }
  if (n > 0) {
    struct sample warm = samples[n / 5];
    for (int i = n / 5; i < n; i++) {
      struct sample* s = &samples[i];
      if (s->rss > warm.rss + RSS_SLACK) fprintf(stderr, "RSS grew after warm-up, at %d ops\n", s->ops);
      CHECK(s->rss <= warm.rss + RSS_SLACK);
      CHECK(s->fds <= warm.fds + FD_SLACK);
      CHECK(s->goroutines <= warm.goroutines + GOROUTINE_SLACK);
      CHECK_EQ_I64(s->handles, 0);
      CHECK_EQ_I64(s->batches, 0);
    }
  }
  /* Every commit is in the tables, once. */
  t = open_fixture("impala_iceberg_partitioned"); /* any open; proves the library still works */
  floe_table_free(t);
  t = NULL;
  CHECK_OK(floe_table_open(local, NULL, &t));
  if (t) CHECK_EQ_I64(stream_rows(t, NULL), commits[0]);
  floe_table_free(t);
  free(samples);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  stop_s3();
  floe_release_cached_memory();
  int failures = atomic_load(&test_failures);
  printf("%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
