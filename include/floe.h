/*
 * floe.h — the C API of libfloe: read Apache Iceberg tables as Arrow data,
 * and write and commit Arrow data to them.
 *
 * This header is written by hand and is the stable interface of libfloe.so.
 * It is C99 and needs nothing but the C standard library.
 *
 *   floe_table *t;  floe_scan *s;  struct ArrowArrayStream stream;
 *   if (floe_table_open("warehouse/db/events", NULL, &t) != FLOE_OK)
 *       fprintf(stderr, "%s\n", floe_last_error());
 *   floe_scan_open(t, "{\"columns\": [\"id\", \"payload.kind\"]}", &s);
 *   floe_scan_stream(s, &stream);      // Arrow C stream: get_next() until
 *   ...                                // a released array, then release()
 *   floe_scan_free(s);  floe_table_free(t);
 *
 * ERRORS. Every function that can fail returns a floe_status. On failure
 * floe_last_error() returns a message for the calling thread; it stays valid
 * until that thread's next floe_* call. Arguments are checked: a NULL where
 * an object is needed, malformed JSON, an unknown option, or a handle that
 * was already freed (or never came from floe) give FLOE_INVALID_ARGUMENT,
 * not a crash. An internal panic is caught and reported as FLOE_INTERNAL.
 *
 * OWNERSHIP. Handles (floe_table*, floe_scan*) are opaque; free each once
 * with its _free function. Strings and byte buffers that floe returns are
 * freed with floe_string_free / floe_bytes_free. Arrow structures follow the
 * Arrow C Data Interface: the consumer calls their release callback. Arrow
 * buffers are allocated with malloc and are never copied on export; they
 * stay valid until the array's release callback runs, independent of the
 * scan or table handle they came from (a stream may outlive its scan).
 *
 * THREADS. Every function may be called from any thread, and several
 * threads may use the same table or scan handle at once (floe_scan_add_filter
 * and floe_scan_metrics are meant to be called while streams of the scan
 * are being read). A stream
 * (struct ArrowArrayStream) must be used by one thread at a time, as the
 * Arrow C Stream Interface requires (floe serialises calls on one stream
 * anyway, so misuse does not corrupt memory). Different streams of one scan
 * can be read in parallel.
 *
 * EMBEDDING (libfloe is written in Go):
 *  - The Go runtime starts when the library is loaded: it adds a few threads
 *    (about five) and a few MB of memory before any floe call.
 *  - Do not call floe in a child created by fork() without exec(): the Go
 *    runtime's threads do not survive fork and the child hangs. Python:
 *    use multiprocessing's "spawn" or "forkserver" start method; tasks are
 *    serialisable (floe_scan_task) precisely so other processes can read
 *    them.
 *  - The Go runtime installs signal handlers for SIGSEGV, SIGBUS, SIGFPE,
 *    SIGPIPE and SIGURG (SIGURG is used for goroutine preemption; expect
 *    EINTR from slow system calls in host threads). Handlers the host
 *    installed before loading floe are kept and called for signals that do
 *    not come from Go code. A host that installs its own SIGSEGV/SIGBUS
 *    handler after loading must use SA_ONSTACK and chain to the previous one.
 *  - The first floe call from a new host thread costs a few microseconds
 *    (the thread is registered with the Go runtime); later calls cost well
 *    under a microsecond of overhead.
 *  - Unloading (dlclose) the library is not supported; load it once.
 */
#ifndef FLOE_H
#define FLOE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Arrow C Data Interface and C Stream Interface, as published by Apache
 * Arrow (https://arrow.apache.org/docs/format/CDataInterface.html). The
 * guards let this header sit next to any other copy of the definitions.
 * ------------------------------------------------------------------------ */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  /* Array type description */
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  /* Release callback */
  void (*release)(struct ArrowSchema*);
  /* Opaque producer-specific data */
  void* private_data;
};

struct ArrowArray {
  /* Array data description */
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  /* Release callback */
  void (*release)(struct ArrowArray*);
  /* Opaque producer-specific data */
  void* private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  /* Callbacks providing stream functionality */
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  /* Release callback */
  void (*release)(struct ArrowArrayStream*);

  /* Opaque producer-specific data */
  void* private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* ------------------------------------------------------------------------
 * Version and errors
 * ------------------------------------------------------------------------ */

/* The version this header describes. floe_version() gives the version of
 * the library actually loaded. */
#define FLOE_VERSION_MAJOR 0
#define FLOE_VERSION_MINOR 1
#define FLOE_VERSION_PATCH 0
#define FLOE_VERSION_STRING "0.1.0"

/* The library's version, "MAJOR.MINOR.PATCH". A static string. */
const char* floe_version(void);

/* Status codes. Values are stable; new codes may be added at the end, so
 * treat an unknown nonzero value as an error. */
typedef enum floe_status {
  FLOE_OK = 0,
  /* A NULL or freed handle, a NULL output pointer, malformed JSON, an
   * unknown option or column name, an index out of range. */
  FLOE_INVALID_ARGUMENT = 1,
  /* The table, a file it names, a snapshot, ref or timestamp does not
   * exist. */
  FLOE_NOT_FOUND = 2,
  /* Reading or writing storage failed (permissions, a device or network
   * error). */
  FLOE_IO = 3,
  /* A metadata, manifest, data or delete file is corrupt or not valid
   * Iceberg/Parquet/Avro. */
  FLOE_FORMAT = 4,
  /* Valid input that this build of floe cannot handle (a storage scheme,
   * a codec, a feature of the format, row filters). */
  FLOE_UNSUPPORTED = 5,
  /* Another writer got there first: a commit found what it replaces or
   * removes changed, or a table to create already exists. Nothing was
   * committed. */
  FLOE_CONFLICT = 6,
  /* A bug in floe, such as a caught panic. The message says where. */
  FLOE_INTERNAL = 7,
  /* A commit may or may not have been published: its answer never came
   * (a timeout, a cut connection) or the catalog failed while handling
   * it (a 5xx). The files it wrote are kept; retrying with the same
   * idempotency token settles it (committed once, or found committed). */
  FLOE_COMMIT_STATE_UNKNOWN = 8,
  /* A catalog or store refused the credentials (HTTP 401 or 403). The
   * message names the catalog and never shows a secret. */
  FLOE_UNAUTHORIZED = 9,
  /* floe_scan_cancel stopped the call (or the stream). */
  FLOE_CANCELLED = 10,
  /* The call ran past its "timeout_ms" option. For a commit, see
   * FLOE_COMMIT_STATE_UNKNOWN, which a commit reports instead when its
   * outcome is not known. */
  FLOE_TIMEOUT = 11
} floe_status;

/* What floe holds now, as a JSON object in a new string to free with
 * floe_string_free, for hosts that run for hours and watch for growth:
 * {"goroutines": <Go goroutines>, "handles": <live floe_* handles and
 * streams>, "batches": <exported arrays not yet released>,
 * "heap_alloc_bytes", "heap_sys_bytes": <Go heap in use, and held from the
 * OS>, "export_bytes": <C memory behind exported batches, pooled
 * included>, "pooled_bytes": <of it, kept for reuse>}. */
floe_status floe_runtime_stats(char** json);

/* The message of the calling thread's last failed floe call, or "" when
 * that call succeeded. Never NULL. Valid until the thread's next floe_*
 * call; copy it to keep it. Per-thread storage is freed when the thread
 * exits. */
const char* floe_last_error(void);

/* A short constant name for a status, such as "FLOE_NOT_FOUND". */
const char* floe_status_name(int status);

/* Free memory floe returned. NULL is accepted. */
void floe_string_free(char* s);
void floe_bytes_free(uint8_t* bytes);

/* floe keeps the buffers of released batches (up to 128 MiB) to reuse for
 * later batches: fresh memory costs a page fault per page on every batch.
 * This returns that idle memory to the C allocator, for hosts that want
 * it back between scans, and before exit under a leak checker (the pool is
 * referenced only from Go memory, which LeakSanitizer does not scan).
 * Batches still alive are not affected. Thread-safe. */
void floe_release_cached_memory(void);

/* ------------------------------------------------------------------------
 * Tables
 * ------------------------------------------------------------------------ */

typedef struct floe_table floe_table;

/* Open the table at location: a metadata JSON file, a table directory (its
 * metadata/ folder is searched: version hint, then the newest vN or
 * NNNNN-uuid metadata file), or a dataset name "ns.table" under the
 * warehouse.
 *
 * options_json may be NULL or "{}". Keys (unknown keys are refused):
 *   "location_map": {"<prefix written in metadata>": "<where it is now>", ...}
 *       rewrites every path the table names; prefixes match whole path
 *       elements and the longest wins (a table copied out of HDFS or S3).
 *       /p, file:/p and file:///p are one path; "hdfs://STAR/p" (STAR
 *       being the character *) matches /p under any HDFS authority.
 *   "relocate": true|false   (default true) when the metadata file was
 *       found away from the location it records and that location does
 *       not exist, read the recorded paths from where the table was found
 *       (its directory above metadata/). false reads them as recorded.
 *   "warehouse": "<dir>"   root for dataset names (default $FLOE_WAREHOUSE).
 *   "memory_limit": <int64>  the default memory_limit of scans opened from
 *       the handle (see floe_scan_open); in floe_task_stream's options,
 *       the task read's.
 *   "timeout_ms": <int64>  bounds this call, and is the default bound of
 *       every later call on the handle: scans opened from it (see
 *       floe_scan_open), commits, expiry; in floe_task_stream's options,
 *       the task's read. Past it: FLOE_TIMEOUT (or, for a commit whose
 *       outcome is not known, FLOE_COMMIT_STATE_UNKNOWN). 0 is none.
 *   "properties": {"<key>": "<value>", ...}   storage settings (credentials,
 *       endpoints), reserved: this build reads local files only and
 *       answers FLOE_UNSUPPORTED to any property.
 *
 * On success *out is a new handle; on failure *out is set to NULL. */
floe_status floe_table_open(const char* location, const char* options_json, floe_table** out);

/* The table metadata, as Iceberg table metadata JSON (the format of
 * metadata/vN.metadata.json), in a new string to free with
 * floe_string_free. */
floe_status floe_table_metadata_json(floe_table* table, char** out);

/* The metadata file the table was read from, in a new string to free with
 * floe_string_free. */
floe_status floe_table_metadata_location(floe_table* table, char** out);

/* How far the long call running on this table handle is (floe_append,
 * floe_replace_partitions, floe_overwrite, floe_upsert, floe_add_files,
 * floe_commit, floe_expire_snapshots, floe_table_maintain, ...), or the
 * last one that finished, as a JSON object in a new string to free with
 * floe_string_free: {"call", "files", "files_total", "bytes",
 * "bytes_total", "rows", "rows_total"}, the counts the CLI's status line
 * shows; a total of 0 is not known. "call" numbers the handle's long
 * calls from 1 (0 and all counts 0 before the first), so a host that
 * read it before starting its call can skip samples of the one before.
 * What counts: rows taken from the input stream (appends, overwrites,
 * upserts), files whose footers were read and their bytes (add_files),
 * files deleted (expire_snapshots, remove_orphan_files). Meant to be
 * called from another thread while the call blocks its own; calls on one
 * handle run one at a time, and each starts its counts from 0. */
floe_status floe_table_progress(floe_table* table, char** json_out);

/* Release a table. Scans opened from it stay usable. Freeing NULL is
 * FLOE_OK; freeing twice is FLOE_INVALID_ARGUMENT. */
floe_status floe_table_free(floe_table* table);

/* ------------------------------------------------------------------------
 * Catalogs
 *
 * A catalog keeps tables by name ("ns.table"; nested namespaces
 * "a.b.table") in namespaces ("a", "a.b"), and the tables it loads commit
 * through it with every commit function below. By URI:
 *   "sqlite:///abs/path/catalog.db", "sqlite:relative.db"   SQL, embedded;
 *   "postgresql://user:password@host:port/db"   SQL (needs "warehouse");
 *     (the SQL catalog shares its schema with Java's JdbcCatalog,
 *     pyiceberg, iceberg-go and iceberg-rust)
 *   "http://host:port[/path]", "https://…"   an Iceberg REST catalog;
 *   "/dir", "file:///dir", "s3://bucket/prefix"   a filesystem warehouse
 *     (ns.t at <dir>/ns/t; no rename or register).
 * properties_json (NULL or an object of strings), Iceberg's names:
 * "name" (default "default"), "warehouse" (SQL: where new tables go,
 * default the SQLite file's directory; REST: the warehouse asked for),
 * "uri" (when uri is NULL); REST: "credential" ("id:secret", OAuth2
 * client credentials, refreshed before expiry), "token", "oauth2-server-uri",
 * "scope", "rest.sigv4-enabled", "rest.signing-region", "rest.signing-name",
 * "header.NAME", "ssl.cabundle" (a PEM CA file), "rest.request-timeout",
 * "rest.max-attempts"; every catalog: "s3.endpoint", "s3.region",
 * "s3.access-key-id", "s3.secret-access-key", "s3.session-token",
 * "s3.path-style-access" for the tables' files (a REST server's table
 * config and vended credentials refine them); "timeout-ms": a deadline on
 * this call and every later call on the catalog and the tables loaded
 * from it (FLOE_TIMEOUT past it), and on every connection to PostgreSQL
 * (without it, opening is bounded by 60 s and each PostgreSQL connection
 * by 15 s). Errors never show a password, secret, token or header
 * value (every "header.NAME" value counts as secret); refused credentials
 * are FLOE_UNAUTHORIZED. A "sqlite:" URI takes no "?" parameters. Names,
 * URIs and paths are C strings: a caller holding one with a NUL must
 * refuse it (a NUL in any JSON argument's string is FLOE_INVALID_ARGUMENT).
 *
 * A catalog stays open while its handle or any table loaded from it is
 * alive: free them in any order. Lists come back as JSON in a new string
 * to free with floe_string_free: namespaces [["a"],["a","b"]], tables
 * [["ns","t"],...]. A missing table or namespace is FLOE_NOT_FOUND; one
 * that exists already, or a namespace that still holds tables, is
 * FLOE_CONFLICT. */
typedef struct floe_catalog floe_catalog;

floe_status floe_catalog_open(const char* uri, const char* properties_json, floe_catalog** out);
floe_status floe_catalog_free(floe_catalog* catalog);

/* Load, create (schema_json and options_json as for floe_table_create,
 * without "warehouse" or "s3": the catalog decides), and adopt an
 * existing metadata file as a table (register). */
floe_status floe_catalog_load_table(floe_catalog* catalog, const char* name, floe_table** out);
floe_status floe_catalog_create_table(floe_catalog* catalog, const char* name, const char* schema_json,
                                      const char* options_json, floe_table** out);
floe_status floe_catalog_register_table(floe_catalog* catalog, const char* name, const char* metadata_location,
                                        floe_table** out);
/* Drop forgets the table (purge != 0 would delete its files too: not
 * supported yet, FLOE_UNSUPPORTED); rename moves it, across namespaces. */
floe_status floe_catalog_drop_table(floe_catalog* catalog, const char* name, int purge);
floe_status floe_catalog_rename_table(floe_catalog* catalog, const char* from, const char* to);
floe_status floe_catalog_list_tables(floe_catalog* catalog, const char* namespace_, char** out_json);

/* Namespaces: create (properties_json NULL or an object of strings), drop
 * (refused while it holds tables or namespaces), list those directly
 * below parent (NULL: the top level), read and change properties. */
floe_status floe_catalog_create_namespace(floe_catalog* catalog, const char* namespace_, const char* properties_json);
floe_status floe_catalog_drop_namespace(floe_catalog* catalog, const char* namespace_);
floe_status floe_catalog_list_namespaces(floe_catalog* catalog, const char* parent, char** out_json);
floe_status floe_catalog_namespace_properties(floe_catalog* catalog, const char* namespace_, char** out_json);
floe_status floe_catalog_update_namespace_properties(floe_catalog* catalog, const char* namespace_,
                                                     const char* removals_json, const char* updates_json);

/* *exists is 1 when the table (is_table != 0: name is "ns.table") or the
 * namespace exists, else 0. */
floe_status floe_catalog_exists(floe_catalog* catalog, const char* name, int is_table, int* exists);

/* Commit changes to several tables of the catalog atomically: afterwards
 * every table holds its changes, or none does. tables are n_tables
 * distinct handles loaded from this catalog; transactions_json is a JSON
 * array of n_tables objects, the i-th for tables[i]:
 *   {"actions": [...], "token": "<string>"}
 * "actions" is the action list floe_table_transaction takes (one new
 * metadata version per table, one snapshot per snapshot action); "token"
 * (optional) is that table's as in its options. All are built on the
 * versions the handles hold and published together; when another writer
 * committed to any of them first, every table is refreshed and every list
 * built again, as floe_table_transaction does for one (FLOE_CONFLICT,
 * nothing committed, when what a list's metadata actions depended on no
 * longer holds). The SQL catalog swaps every table's row in one database
 * transaction; a REST catalog sends POST /v1/{prefix}/transactions/commit.
 * FLOE_UNSUPPORTED, nothing committed: a REST server that does not offer
 * it (its /v1/config lists endpoints without it, or it answers 404, 405 or
 * 501), a filesystem warehouse (each table is a directory of its own, with
 * nothing shared to swap). A handle given twice, or one of another
 * catalog, is FLOE_INVALID_ARGUMENT. options_json may be NULL or "{}":
 *   "timeout_ms": <int64>  bounds this call instead of the catalog's;
 *   "discard_refused": true  the snapshot actions' files were written for
 *                 this commit only, and are deleted when it fails (any
 *                 status but FLOE_COMMIT_STATE_UNKNOWN) or a table finds
 *                 its token.
 * On success each handle holds its table's committed version, and
 * *result_json (free with floe_string_free) is {"tables": [r, ...]}, r the
 * result floe_table_transaction gives, in the order of tables. */
floe_status floe_catalog_commit_transaction(floe_catalog* catalog, floe_table* const* tables, size_t n_tables,
                                            const char* transactions_json, const char* options_json,
                                            char** result_json);

/* ------------------------------------------------------------------------
 * Creating tables, writing and committing
 *
 * A floe_table handle holds one version of the table. A commit made through
 * it builds on that version (refreshing and retrying on its own when other
 * writers committed first, commit.retry.num-retries times) and, on success,
 * leaves the handle holding the committed version. Commits through one
 * handle run one at a time; handles in other threads or processes commit
 * concurrently and safely. Scans opened before a commit keep reading the
 * version they were opened on.
 *
 * commit_json may be NULL or "{}". Keys (unknown keys are refused):
 *   "token":      "<string>"  makes the commit idempotent: recorded in the
 *                 snapshot summary (floe.commit-token); when a snapshot of
 *                 the table already carries it, nothing is committed and
 *                 that snapshot's id is returned. Pass a key of the
 *                 pipeline step that stays the same across its retries.
 *   "properties": {"<key>": "<value>", ...}  extra snapshot summary
 *                 entries (not the standard ones nor floe.*).
 *   "timeout_ms": <int64>  bounds this call (writing and committing)
 *                 instead of the table's timeout_ms: FLOE_TIMEOUT past it,
 *                 or FLOE_COMMIT_STATE_UNKNOWN when the commit's outcome
 *                 cannot be known.
 *   "run_id":     "<string>"  the pipeline run (floe.run-id); see
 *                 floe_replace_partitions.
 *   "branch":     "<name>"    commit to this branch (default "main"); one
 *                 that does not exist is created from main.
 *
 * Failures: FLOE_CONFLICT when another writer changed what the commit
 * replaces or removes (nothing was committed; plan again and retry);
 * FLOE_INVALID_ARGUMENT when the data does not fit the table's schema or
 * an option is wrong; FLOE_IO for storage errors. Data files written by a
 * failed call are deleted, except when a storage error leaves it unknown
 * whether the commit happened (the message says so): they are then kept,
 * as the table may reference them.
 *
 * STREAMS. Functions taking `struct ArrowArrayStream* data` consume it:
 * every batch is read, and the stream is released before they return,
 * whether they succeed or fail. Batch columns are matched to the table's by
 * name at every depth (struct fields; list elements and map keys and values
 * by position); "PARQUET:field_id" metadata is ignored, since ids belong to
 * the table that gave them (a scan of another table). A missing optional
 * column is written as nulls; a column the table lacks is
 * FLOE_INVALID_ARGUMENT naming it and the closest column ("did you mean");
 * int8/16/32 into long, int8/16 into int, float32 into double and a
 * narrower decimal of the same scale are widened; another type is
 * FLOE_INVALID_ARGUMENT naming the column and both types. Data files are
 * Parquet, written under the table's write.data.path (default
 * <location>/data) with
 * the codec, sizes and metrics the table's write.* properties ask for, one
 * or more per partition of the table's default spec.
 * ------------------------------------------------------------------------ */

/* Create a table at location (a directory, or a dataset name "ns.table"
 * under the warehouse) with schema_json, an Iceberg schema in the JSON form
 * of table metadata ({"type": "struct", "schema-id": 0, "fields": [{"id": 1,
 * "name": "a", "required": false, "type": "long"}, ...]}). A schema whose
 * field ids are all 0 gets fresh ids.
 *
 * options_json may be NULL or "{}". Keys (unknown keys are refused):
 *   "partition_by":   [{"column": "ts", "transform": "day", "name": "..."}]
 *                     partition fields by source column name; transform in
 *                     Iceberg form (identity, year, month, day, hour,
 *                     bucket[N], truncate[W], void; default identity);
 *                     name defaults as in Java (ts_day, id_bucket, ...).
 *                     Needs a schema with field ids.
 *   "partition_spec": an Iceberg partition spec object (source ids), instead
 *                     of partition_by.
 *   "sort_order":     an Iceberg sort order object.
 *   "properties":     {"<key>": "<value>", ...} table properties
 *                     ("format-version" picks the format version too).
 *   "format_version": 1, 2 or 3 (default 2).
 *   "warehouse":      "<dir>" root for dataset names (default
 *                     $FLOE_WAREHOUSE).
 *   "ensure":         true: when a table exists there, open it instead and
 *                     bring its schema up to schema_json by column name
 *                     (missing columns added, required ones made optional;
 *                     a type change or new required column is refused).
 *   "location":       floe_catalog_create_table only: where the catalog puts
 *                     the new table instead of its default place (a
 *                     filesystem warehouse refuses any other place); here
 *                     it is refused, the location being the argument.
 *
 * A table already at location is FLOE_CONFLICT (unless "ensure"). On
 * success *out is a new handle to free with floe_table_free; on failure
 * *out is NULL. */
floe_status floe_table_create(const char* location, const char* schema_json, const char* options_json,
                              floe_table** out);

/* Write the stream's batches as data files and commit them in one append
 * snapshot; *snapshot_id is its id (or, with a token already committed,
 * the id of that earlier snapshot). An empty stream still commits an empty
 * snapshot, so a caller's numbered commits keep their numbers. Appends never
 * conflict. */
floe_status floe_append(floe_table* table, struct ArrowArrayStream* data, const char* commit_json,
                        int64_t* snapshot_id);

/* Like floe_append, but the partitions the new files land in lose the files
 * other writers left there (an unpartitioned table is one partition; files
 * of older specs stay). With a "run_id", only the run's first commit to a
 * partition replaces; its later commits to it append, and files the run
 * committed are never removed. FLOE_CONFLICT, committing nothing, when
 * another writer changed one of those partitions after the version the
 * handle holds (or after the run's first commit). */
floe_status floe_replace_partitions(floe_table* table, struct ArrowArrayStream* data,
                                    const char* commit_json, int64_t* snapshot_id);

/* Write the stream's batches as data files of the table without committing
 * them, and return their manifest entries (every field, metrics included)
 * serialised in *files / *len, a new buffer to free with floe_bytes_free.
 * Any floe process can commit them with floe_append_files or floe_commit;
 * until then the files are in no snapshot. */
floe_status floe_write_files(floe_table* table, struct ArrowArrayStream* data, uint8_t** files,
                             size_t* len);

/* Commit data files from floe_write_files (files/len, read during the call)
 * in one append snapshot. Delete files are refused. The files are not
 * deleted whatever happens, unless commit_json has "discard_refused": true
 * (here and in floe_replace_partitions_files): the files were written for
 * this commit only, and are deleted as floe_discard_files deletes them
 * when the commit fails (any status but FLOE_COMMIT_STATE_UNKNOWN) or
 * finds its token committed by an earlier attempt. Only the commit knows
 * which of these happened: a found token returns an id as a commit does. */
floe_status floe_append_files(floe_table* table, const uint8_t* files, size_t len,
                              const char* commit_json, int64_t* snapshot_id);

/* Commit data files from floe_write_files (files/len, read during the call)
 * as floe_replace_partitions commits what it writes: the partitions they
 * land in lose the files other writers left there; commit_json and
 * FLOE_CONFLICT as there (a "run_id" too). Delete files are refused. How a
 * job whose workers write files commits them as one replace. */
floe_status floe_replace_partitions_files(floe_table* table, const uint8_t* files, size_t len,
                                          const char* commit_json, int64_t* snapshot_id);

/* Delete data files from floe_write_files (files/len, read during the call)
 * that no commit took: a job whose workers wrote them gave up before
 * committing, or its commit failed (any status but
 * FLOE_COMMIT_STATE_UNKNOWN, when the table may hold them).
 * floe_append_files and the other commits never delete the files they are
 * given unless asked ("discard_refused"); this call is how a job whose
 * workers wrote them leaves no file behind otherwise. Every file
 * is checked before any is deleted, against the table's newest version:
 * one not under the table's data location is FLOE_INVALID_ARGUMENT, one
 * that any snapshot of the table references is FLOE_CONFLICT (the commit
 * took them); nothing is deleted then. A file already gone is no error, so
 * a discard can be retried. The handle keeps the version it holds. */
floe_status floe_discard_files(floe_table* table, const uint8_t* files, size_t len);

/* Register Parquet files that already exist (paths_json: a JSON array of
 * their locations) as data files of the table in one append snapshot,
 * without rewriting them (pyiceberg's add_files). Each entry comes from
 * the file's footer: record count, column sizes, value and null counts,
 * bounds truncated as the table's metrics modes say, split offsets.
 * Columns are matched by field id, or by name for files without ids (the
 * table then gets schema.name-mapping.default when it has none).
 * Partition values come from Hive-style name=value directories (identity
 * fields) or from statistics proving one value per file. A file whose
 * columns do not fit the schema, or whose partition is not known, is
 * FLOE_INVALID_ARGUMENT naming the file and column; one the table already
 * references is FLOE_CONFLICT; nothing is committed then. The files are
 * never deleted. commit_json as for floe_append (token, properties,
 * branch). */
floe_status floe_add_files(floe_table* table, const char* paths_json, const char* commit_json,
                           int64_t* snapshot_id);

/* Commit files added (from floe_write_files; NULL or len 0 for none; data
 * or delete files) and files removed (removed_paths_json: a JSON array of
 * file paths as the table's manifests write them; NULL for none) in one
 * snapshot. When a file to remove is not in the current snapshot (another
 * writer removed it) nothing is committed and the answer is FLOE_CONFLICT. */
floe_status floe_commit(floe_table* table, const uint8_t* added_files, size_t len,
                        const char* removed_paths_json, const char* commit_json,
                        int64_t* snapshot_id);

/* Delete the rows filter selects, in one "delete" snapshot. filter is
 * pyiceberg's row_filter text ("id < 10 and kind = 'x'") or an Iceberg REST
 * JSON expression (starting with '{'); a row is deleted when the filter is
 * true for it (null is not true). Files whose every row matches are
 * dropped; the others follow commit_json's "delete_mode" or else the
 * table's write.delete.mode: "copy-on-write" (the default, as in Java)
 * rewrites them without the rows, "merge-on-read" writes position delete
 * files (v2) or deletion vectors (v3, merged with the file's earlier one).
 * When no row matches nothing is committed and *snapshot_id is the current
 * snapshot's id (0 for none). FLOE_CONFLICT, committing nothing, when
 * another writer changed files the filter may select after the version
 * the handle holds. commit_json also takes "token", "properties", "branch". */
floe_status floe_delete_rows(floe_table* table, const char* filter, const char* commit_json,
                             int64_t* snapshot_id);

/* Replace the rows filter selects (as floe_delete_rows deletes them) with
 * the stream's rows, in one "overwrite" snapshot; conflicts as there. */
floe_status floe_overwrite(floe_table* table, const char* filter, struct ArrowArrayStream* data,
                           const char* commit_json, int64_t* snapshot_id);

/* Merge the stream's rows into the table by key (pyiceberg's upsert), in
 * one "overwrite" snapshot: a row whose key matches live rows replaces
 * them, the others are inserted. Rows equal in every column to the live
 * row are skipped (neither updated nor inserted). options_json (NULL for
 * the defaults):
 *   "join_cols":   ["k1", ...] the key columns (default: the schema's
 *                  identifier fields; neither is FLOE_INVALID_ARGUMENT).
 *   "mode":        "merge-on-read" (default on format v2/v3: position
 *                  delete files on v2, deletion vectors on v3),
 *                  "copy-on-write" (the only mode of v1), or
 *                  "equality-deletes" (one file per partition the
 *                  replaced rows lie in).
 *   "when_matched_update_all", "when_not_matched_insert_all",
 *   "case_sensitive" (of join_cols): booleans, default true.
 *   "token", "properties", "branch", "timeout_ms": as commit_json.
 * Two rows of the stream with one key, or a null key, are
 * FLOE_INVALID_ARGUMENT and nothing is written. FLOE_CONFLICT, committing
 * nothing, when another writer changed files the keys may reach after the
 * version the handle holds. *result_json (free with floe_string_free) is
 * {"snapshot_id": id, "committed": bool, "token_found": bool,
 * "rows_updated": n, "rows_inserted": n, "rows_deleted": n}; with nothing
 * to change, committed is false and snapshot_id the current snapshot's. */
floe_status floe_upsert(floe_table* table, struct ArrowArrayStream* data, const char* options_json,
                        char** result_json);

/* Arrow streams for hosts without an Arrow library of their own. */

/* A stream of rows given as JSON lines (one object per line, "{\"i\": 1,
 * \"s\": \"x\"}"), in the table's current schema: keys are column names,
 * missing keys and null are nulls; dates, times, timestamps and decimals are
 * strings ("2024-01-31", "12:00:00", "2024-01-31 12:00:00", "1.25"; a
 * timestamptz needs its offset: "2024-01-31T12:00:00Z"), binary base64.
 * The rows are parsed during the call (rows/len may be freed after it); a
 * key the table lacks (at any depth) is FLOE_INVALID_ARGUMENT naming it and
 * the closest column, and a value that does not fit names its line and
 * column ("line 3, column \"id\": \"three\" is not a long"). out must point
 * at writable memory; the caller releases the stream (floe_append and the
 * other writers do it for the caller). */
floe_status floe_json_rows_stream(floe_table* table, const char* rows, size_t len,
                                  struct ArrowArrayStream* out);

/* A one-batch stream of a record batch exported as a struct array (what the
 * Arrow PyCapsule Interface's __arrow_c_array__ gives). schema and array are
 * consumed (released by the call, whether it succeeds or not). */
floe_status floe_array_stream(struct ArrowSchema* schema, struct ArrowArray* array,
                              struct ArrowArrayStream* out);

/* Expire old snapshots and delete the files only they referenced.
 * options_json may be NULL or "{}". Keys:
 *   "older_than_ms": <ms since epoch>  expire snapshots older than this
 *                    (default: now - history.expire.max-snapshot-age-ms,
 *                    5 days);
 *   "retain_last":   <int >= 1>  keep at least this many newest snapshots of
 *                    each branch (default history.expire.min-snapshots-to-keep,
 *                    1);
 *   "keep_files":    <bool>  change the metadata only, delete no file.
 * The current snapshot and those refs point at always stay. *result_json
 * (free with floe_string_free) is {"expired_snapshots": [ids],
 * "removed_refs": [names], "deleted_files": [paths], "failed_deletes": n,
 * "outside": [paths]}. Only files under the table's location are deleted
 * (after its location map, with no "." or ".." segment, and on local disks
 * with symlinks resolved): unreferenced files elsewhere (registered with
 * floe_add_files, say) are left and listed in "outside". */
floe_status floe_expire_snapshots(floe_table* table, const char* options_json, char** result_json);

/* Told how far floe_table_maintain is: progress_json is a JSON object
 * {"action": name, "done": n, "total": n, "group": {...}} valid only
 * during the call. Called on the thread that called floe_table_maintain. */
typedef void (*floe_progress_fn)(const char* progress_json, void* user_data);

/* Run one table-maintenance action. options_json may be NULL or "{}";
 * an unknown key is FLOE_INVALID_ARGUMENT naming the closest one. Every
 * action takes "timeout_ms". progress (may be NULL) is called with
 * user_data as the action goes: per file group for "rewrite_data_files",
 * once at the end for the others. *result_json (free with
 * floe_string_free) is one JSON object. Actions:
 *  "remove_orphan_files": delete files under the table's location that no
 *    snapshot or metadata file references. "older_than_ms": <ms since
 *    epoch> keep files modified after it (default 3 days ago; less than
 *    1 hour ago needs "force": true), "dry_run": <bool> delete nothing,
 *    "location": <directory under the table's location>. Result:
 *    {"dry_run", "orphan_files": [paths], "deleted_files_count",
 *    "failed_deletes_count", "listed_files_count",
 *    "referenced_files_count", "too_new_files_count"}. Refused on a table
 *    with gc.enabled=false.
 *  "rewrite_manifests": regroup the branch head's manifests by partition
 *    into manifests near "target_size_bytes" (default
 *    commit.manifest.target-size-bytes), one "replace" snapshot.
 *    "token", "properties", "branch" as commit_json. Result:
 *    {"snapshot_id", "committed", "token_found",
 *    "rewritten_manifests_count", "added_manifests_count",
 *    "kept_manifests_count", "processed_entries_count"}; committed is
 *    false when each content and spec is one manifest already.
 *  "remove_dangling_deletes": remove delete files (and deletion vectors)
 *    that apply to no live data file, one "replace" snapshot; "token",
 *    "properties", "branch". Result: {"snapshot_id", "committed",
 *    "token_found", "removed_delete_files": [paths]}.
 *  "compute_statistics": NDV theta sketches of "columns" (default every
 *    top-level primitive column) of "snapshot_id" (default current),
 *    written as a Puffin file and registered in the metadata; on a
 *    partitioned table also the snapshot's partition statistics file
 *    (Parquet, the spec's schema; counts from the manifests alone).
 *    "ndv": false skips the sketches; "partition_statistics": false skips
 *    the partition file, true requires it (an unpartitioned table is
 *    then FLOE_INVALID_ARGUMENT). Result: {"snapshot_id",
 *    "statistics_path", "file_size_in_bytes", "ndv": {"column": n},
 *    "partition_statistics": {"statistics_path", "file_size_in_bytes",
 *    "partitions"}}, keys of what was skipped left out.
 *  "rewrite_data_files": compact small files (bin-pack) and apply
 *    deletes. "strategy": "binpack" (default), "sort" (each group
 *    sorted by the table's sort order or "sort_order_id"), "zorder" or
 *    "hilbert" (each group ordered along that curve over
 *    "zorder_columns"). Java's options in snake case: "target_file_size_bytes",
 *    "min_file_size_bytes", "max_file_size_bytes", "min_input_files",
 *    "delete_file_threshold", "delete_ratio_threshold", "rewrite_all",
 *    "max_file_group_size_bytes", "partial_progress_enabled",
 *    "partial_progress_max_commits",
 *    "max_concurrent_file_group_rewrites", "output_spec_id" (the spec
 *    the new files are partitioned by; default the table's default spec,
 *    into which files of older specs are rewritten), "filter" (as
 *    floe_delete_rows takes it), "token", "branch". Result:
 *    {"starting_snapshot_id",
 *    "groups": [{"id", "partition", "input_files", "input_bytes",
 *    "output_files", "snapshot_id", "error"}],
 *    "rewritten_data_files_count", "added_data_files_count",
 *    "rewritten_bytes_count", "removed_delete_files_count",
 *    "failed_data_files_count", "snapshot_ids": [ids], "token_found"}.
 *  "rewrite_position_deletes": merge a partition's position delete files
 *    (positions of removed data files dropped) into files near
 *    "target_file_size_bytes"; on v3, one deletion vector per data file.
 *  "convert_equality_deletes": turn every equality delete into position
 *    deletes (v2) or deletion vectors (v3) of the rows it removes. Both:
 *    one "replace" snapshot, "token", "properties", "branch"; result
 *    {"snapshot_id", "committed", "token_found", "removed_delete_files",
 *    "added_delete_files", "data_files"}.
 *  "health": what the table needs, changing nothing ("skip_orphans":
 *    <bool> leaves out listing the location). Result: {"snapshot_id",
 *    "data_files", "small_data_files", "worst_partitions", delete files
 *    by kind, "dangling_delete_files", "compaction_groups",
 *    "mergeable_manifests", "expirable_snapshots", "orphan_files",
 *    "statistics_current", "partition_statistics_current",
 *    "stale_statistics": ["ndv", "partition_statistics"] (what the
 *    current snapshot lacks on a table that keeps statistics: one with a
 *    statistics file or write.statistics.on-commit=true), ...}.
 *  "maintain": the maintenance planner: the health, then the actions it
 *    calls for in this order: rewrite_data_files,
 *    convert_equality_deletes (then rewrite_data_files again),
 *    rewrite_position_deletes, remove_dangling_deletes,
 *    rewrite_manifests, expire_snapshots, remove_orphan_files,
 *    compute_statistics (the stale statistics), each judged on the table
 *    the earlier left; "dry_run": <bool> only reports, "skip_orphans",
 *    "min_equality_delete_files" (convert when at least this many
 *    equality delete files apply to live data; default 1),
 *    "min_position_delete_files" (merge when at least this many position
 *    delete files can merge, v2; default 5; on v3 any is turned into
 *    deletion vectors); a negative threshold never runs that action.
 *    Result: {"dry_run", "health", "actions": [{"action", "reason",
 *    "result"}]}; a failing action stops the run with its error.
 * FLOE_CONFLICT, committing nothing, when another writer removed what a
 * commit replaces (with partial progress, only that group fails). */
floe_status floe_table_maintain(floe_table* table, const char* action, const char* options_json,
                                floe_progress_fn progress, void* user_data, char** result_json);

/* Compaction split across processes (floe.dask.rewrite_data_files): the
 * client plans, workers rewrite one file group each, the client commits
 * the workers' results in one "replace" snapshot, or several (partial
 * progress). The same work as floe_table_maintain's "rewrite_data_files".
 *
 * floe_rewrite_plan: choose the files to compact on the version the handle
 * holds, as "rewrite_data_files" does (its options; "timeout_ms").
 * *plan_json (free with floe_string_free) is {"starting_snapshot_id",
 * "options", "groups": [group, ...]}; each group is a JSON object
 * {"id", "starting_snapshot_id", "spec_id", "partition", "data_files",
 * "input_bytes", "input_rows", "delete_files", "tasks", ...} carrying
 * everything a worker reads (the reader's serialised tasks, deletes
 * included). No group: nothing to compact. */
floe_status floe_rewrite_plan(floe_table* table, const char* options_json, char** plan_json);

/* floe_rewrite_group: on a worker, read one group of a plan (group/len:
 * one element of "groups" as JSON, read during the call) with every delete
 * applied and write its rows as new data files near the plan's target
 * size, committing nothing. table is a handle of the metadata file the
 * plan was made from (floe_table_metadata_location on the client).
 * options_json: {"timeout_ms"} or NULL. *result / *result_len (free with
 * floe_bytes_free) is the group's result as JSON bytes for
 * floe_rewrite_commit or floe_rewrite_discard, in any process. On an error
 * the files it wrote are deleted. */
floe_status floe_rewrite_group(floe_table* table, const uint8_t* group, size_t len, const char* options_json,
                               uint8_t** result, size_t* result_len);

/* floe_rewrite_commit: commit the results of groups of one plan
 * (results/len: a JSON array of floe_rewrite_group results, read during
 * the call) in one "replace" snapshot: the groups' data files are replaced
 * by the files written, and delete files that applied only to them go
 * too. options_json: {"token", "branch" (the plan's), "discard_refused":
 * <bool> delete the results' files when the commit fails (any status but
 * FLOE_COMMIT_STATE_UNKNOWN) or finds its token, "partial_progress":
 * <bool> this is one of several commits of a run's groups: the token taken
 * is the run's "token" and a hash of the files replaced, as
 * "rewrite_data_files" with "partial_progress_enabled" commits, so a
 * retried group commit finds its own, "timeout_ms"}.
 * *result_json (free with floe_string_free) is {"snapshot_id",
 * "token_found", "rewritten_data_files_count", "added_data_files_count",
 * "removed_delete_files": [paths]}. FLOE_CONFLICT, committing nothing,
 * when another writer removed one of the files or deleted rows of one
 * after the plan's snapshot. On success the handle holds the committed
 * version. */
floe_status floe_rewrite_commit(floe_table* table, const uint8_t* results, size_t len, const char* options_json,
                                char** result_json);

/* floe_rewrite_discard: delete the files of floe_rewrite_group results
 * (a JSON array, as floe_rewrite_commit takes) that no commit took, as
 * floe_discard_files deletes floe_write_files' files (and refuses alike). */
floe_status floe_rewrite_discard(floe_table* table, const uint8_t* results, size_t len);

/* ------------------------------------------------------------------------
 * Transactions: several changes to one table as one commit
 *
 * floe_table_transaction applies a list of actions, in order, each on the
 * metadata the ones before it produced, and commits them as one new
 * metadata version (one snapshot per snapshot action) through whatever
 * loaded the table (its directory, a SQL or REST catalog). When another
 * writer committed first, the list is built again on the newer version if
 * what its metadata actions depended on still holds (the current schema,
 * the default spec and sort order, the refs they move); else the call is
 * FLOE_CONFLICT and nothing is committed. On success the handle holds the
 * committed version.
 *
 * actions_json is a JSON array of objects, each {"action": "<name>", ...}.
 * An unknown name or field, or a field missing, is FLOE_INVALID_ARGUMENT
 * naming the action by its index and name (and, for a name, the closest
 * one); a change the table refuses (a column that does not exist, a type
 * narrowed, a snapshot that is not an ancestor) is FLOE_INVALID_ARGUMENT
 * or FLOE_NOT_FOUND naming it, nothing committed. Consecutive actions of
 * one kind (the schema actions; the partition field actions; the branch,
 * tag and snapshot actions) make one change, as the calls of one
 * pyiceberg update_schema() block do: one new schema, one new spec. The
 * same list (an element per table) is what multi-table transactions take.
 * Column paths ("path", "before", "after", "fields", "source") are a
 * dotted name ("payload.kind"; list elements and map keys and values as
 * "element", "key", "value") or an array of names (["payload", "kind"],
 * pyiceberg's tuple form, joined by dots); "case-sensitive": false on a
 * schema, partition or sort action matches names ignoring case.
 *
 *  Schema (types in the JSON form of table metadata: "long",
 *  "decimal(9, 2)", {"type": "struct", "fields": [...]}; defaults as
 *  single-value JSON, v3 tables only):
 *   {"action": "add-column", "path": P, "type": T, "doc": "...",
 *    "required": false, "initial-default": V, "write-default": V,
 *    "first": true | "before": P | "after": P}   (a required column needs
 *                  an initial-default, or "allow-incompatible-changes")
 *   {"action": "rename-column", "path": P, "new-name": "n"}
 *   {"action": "move-column", "path": P, "first": true | "before": P | "after": P}
 *   {"action": "update-column", "path": P, "type": T, "doc": "...", "required": b}
 *                 (type: the spec's promotions only)
 *   {"action": "make-column-optional", "path": P}
 *   {"action": "require-column", "path": P}  (refused when data may hold nulls)
 *   {"action": "delete-column", "path": P}
 *   {"action": "union-by-name", "schema": S}  (columns of S the table lacks
 *                  added, matched by name at every depth (S's field ids
 *                  are ignored); widening promotions)
 *   {"action": "set-identifier-fields", "fields": [P, ...]}
 *   any of these may carry "allow-incompatible-changes": true (Java's
 *   allowIncompatibleChanges: a required column added without an
 *   initial-default), for it and the schema actions after it.
 *  Partition spec:
 *   {"action": "add-partition-field", "source": P, "transform": "day",
 *    "name": "..."}  (transform in Iceberg's form, default identity: pyiceberg's
 *                  add_identity; name defaults as Java names it)
 *   {"action": "remove-partition-field", "name": "ts_day"}  or
 *   {"action": "remove-partition-field", "source": P, "transform": "day"}
 *   {"action": "rename-partition-field", "name": "a", "new-name": "b"}
 *  Sort order (replaced whole; no fields is unsorted):
 *   {"action": "replace-sort-order", "fields": [{"source": P,
 *    "transform": "identity", "direction": "asc"|"desc",
 *    "null-order": "nulls-first"|"nulls-last"}, ...]}
 *  Branches, tags and main (snapshot-id omitted: main's snapshot):
 *   {"action": "create-branch", "name": "b", "snapshot-id": id,
 *    "min-snapshots-to-keep": n, "max-snapshot-age-ms": ms, "max-ref-age-ms": ms}
 *   {"action": "create-tag", "name": "t", "snapshot-id": id, "max-ref-age-ms": ms}
 *   {"action": "replace-branch", "name": "b", "snapshot-id": id | "ref": "other"} (+ retention)
 *   {"action": "replace-tag", "name": "t", "snapshot-id": id, "max-ref-age-ms": ms}
 *   {"action": "rename-branch", "name": "b", "new-name": "c"}
 *   {"action": "remove-branch", "name": "b"}, {"action": "remove-tag", "name": "t"}
 *   {"action": "set-ref-retention", "name": "b", "min-snapshots-to-keep": n, ...}
 *   {"action": "rollback-to-snapshot", "snapshot-id": id}  (an ancestor of main)
 *   {"action": "rollback-to-timestamp", "timestamp-ms": ms}  (main's latest
 *                  ancestor committed before ms)
 *   {"action": "set-current-snapshot", "snapshot-id": id | "ref": "name"}
 *   {"action": "fast-forward", "branch": "main", "to": "audit"}
 *  Cherry-pick (a snapshot of its own, or a fast-forward):
 *   {"action": "cherry-pick", "snapshot-id": id, "branch": "main"}  (a
 *                  staged or other branch's append or partition replace
 *                  onto the branch, as Java allows; write-audit-publish)
 *  Properties and format:
 *   {"action": "set-properties", "updates": {"k": "v", ...}}
 *   {"action": "remove-properties", "removals": ["k", ...]}
 *   {"action": "upgrade-format-version", "format-version": 2}
 *  Snapshots (files: floe_write_files' bytes, base64; each may carry
 *  "branch": "b" and "snapshot-properties": {"k": "v"}):
 *   {"action": "append-files", "files": "<base64>"}
 *   {"action": "replace-partitions-files", "files": "<base64>", "run-id": "r"}
 *   {"action": "overwrite-files", "filter": "id < 10" | {REST expression},
 *    "files": "<base64>"}  (the filter must select whole files)
 *   {"action": "commit-files", "files": "<base64>", "removed": ["path", ...]}
 *   {"action": "delete-files", "removed": ["path", ...]}
 *  Rows (pyiceberg's tx.delete and tx.overwrite; "filter" as
 *  floe_delete_rows takes it, matched against the table as the
 *  transaction began; "delete-mode": "copy-on-write" | "merge-on-read",
 *  default the table's write.delete.mode; "branch", "snapshot-properties"):
 *   {"action": "delete-rows", "filter": "id < 10"}  (one snapshot, none
 *                  when no row matches)
 *   {"action": "overwrite-rows", "filter": "id < 10", "files": "<base64>"}
 *                  (the rows deleted in one snapshot and the files, the
 *                  new rows written by floe_write_files through the table
 *                  or a preview of the list, appended in a second, as
 *                  pyiceberg's overwrite does; no files: a delete alone)
 *  The delete or rewritten files are written during the call and deleted
 *  again when the transaction does not commit (any status but
 *  FLOE_COMMIT_STATE_UNKNOWN), discard_refused or not.
 *  Expiry (as floe_expire_snapshots, planned on what the earlier actions
 *  leave; files deleted once the version is committed; at most one):
 *   {"action": "expire-snapshots", "older-than-ms": ms, "retain-last": n,
 *    "keep-files": false}
 *
 * options_json may be NULL or "{}". Keys:
 *   "token":      "<string>"  as commit_json's: recorded in the summary of
 *                 each snapshot the transaction makes; when a snapshot
 *                 already carries it nothing is committed and
 *                 "token_found" is true. Needs a snapshot action.
 *   "timeout_ms": <int64>  bounds this call instead of the table's.
 *   "discard_refused": true  the snapshot actions' files were written for
 *                 this transaction only and are deleted (as
 *                 floe_discard_files does) when it fails (any status but
 *                 FLOE_COMMIT_STATE_UNKNOWN) or finds its token.
 *
 * *result_json (free with floe_string_free) is {"committed": bool (false:
 * nothing to change, or token found), "token_found": bool,
 * "snapshot_ids": [ids of the snapshots made, in order],
 * "metadata_location": "...", "format_version": n,
 * "current_snapshot_id": id | null, "current_schema_id": n,
 * "default_spec_id": n, "default_sort_order_id": n,
 * "refs": {"main": {"snapshot-id": id, "type": "branch", retention...}},
 * "expire": {floe_expire_snapshots' result} (with an expire-snapshots
 * action only)}. */
floe_status floe_table_transaction(floe_table* table, const char* actions_json, const char* options_json,
                                   char** result_json);

/* A new handle (free with floe_table_free) holding the table as the
 * metadata actions of actions_json (a list as above; NULL or "[]" for
 * none) leave it: snapshot actions are skipped, nothing is committed.
 * For the data of a later snapshot action of the same transaction:
 * floe_write_files and floe_json_rows_stream through it write and bind
 * with the schema, partition spec and write properties the table will
 * have (a column added earlier in the list is written). Every commit
 * through it is FLOE_INVALID_ARGUMENT. */
floe_status floe_table_transaction_preview(floe_table* table, const char* actions_json, floe_table** out);

/* The Iceberg schema (metadata JSON form, field ids 0) of an Arrow schema:
 * what a "union-by-name" action takes, from Arrow data's schema. schema is
 * consumed (released by the call, whether it succeeds or not); an Arrow
 * type Iceberg has no counterpart for is FLOE_INVALID_ARGUMENT naming the
 * column. *schema_json is freed with floe_string_free. */
floe_status floe_schema_from_arrow(struct ArrowSchema* schema, char** schema_json);

/* ------------------------------------------------------------------------
 * Scans
 * ------------------------------------------------------------------------ */

typedef struct floe_scan floe_scan;

/* Plan a scan of a table. The manifests are read here; data files are read
 * by the streams.
 *
 * scan_json may be NULL or "{}" (every column of the current snapshot).
 * Keys (unknown keys are refused):
 *   "columns":  ["a", "s.b", ...]  dotted names, nested fields pruned; omit
 *               for all columns; [] for none (counting).
 *   "filter":   row filter: a string in pyiceberg's row_filter text form
 *               ("a < 10 and b in ('x', 'y') and c is not null"), or an
 *               object in the Iceberg REST JSON expression form
 *               ({"type": "lt", "term": "a", "value": 10}). A filter that
 *               does not parse or names no column of the snapshot's schema
 *               is FLOE_INVALID_ARGUMENT.
 *   "snapshot_id": <int64> | "as_of_timestamp": <ms since epoch> |
 *   "ref":      "<branch or tag>"      at most one of the three.
 *   "limit":    <int64>  at most this many rows.
 *   "batch_size": <int>  at most this many rows per batch (default 65536).
 *   "threads":  <int>    tasks decoded in parallel (default: every core).
 *   "ordered":  <bool>   false: a parallel stream returns each batch as soon
 *               as any thread has one, in no set order (less waiting on a
 *               slow file); default true: batches in task order, exactly as
 *               with one thread.
 *   "split_size": <int64> bytes of data per task (default: the table
 *               property read.split.target-size, else 134217728). Larger
 *               files are cut into byte ranges (along the manifest's
 *               split_offsets when present); smaller ones are packed into
 *               one task, each counting at least read.split.open-file-cost
 *               bytes (default 4194304).
 *   "case_insensitive": <bool>  column name matching.
 *   "verify_crc": <bool>        check Parquet page checksums.
 *   "snapshot_id": -1 reads the table as it was before its first snapshot
 *               (no rows): the id to pin with when a table was empty.
 *   "from_snapshot_id": <int64>, "to_snapshot_id": <int64>  either makes
 *               an incremental append scan: the rows the "append" snapshots
 *               after from (exclusive; omitted: the oldest ancestor) up to
 *               to (inclusive; omitted: the snapshot chosen as above, else
 *               the current one) added, as Java's IncrementalAppendScan
 *               reads them: overwrite, replace and delete snapshots are
 *               skipped and no delete file is applied. from must be on to's
 *               ancestry: an id the table lacks is FLOE_NOT_FOUND, one off
 *               the path (or after to) FLOE_INVALID_ARGUMENT; to_snapshot_id
 *               with snapshot_id, as_of_timestamp or ref is refused. Tasks,
 *               filters, limits and parallel streams work as for any scan.
 *   "changelog": true  makes a changelog scan of that range instead (no
 *               from_snapshot_id: from the oldest snapshot): every row
 *               change, as Java's changelog view reports it. Its columns are
 *               the table's, then "_change_type" (utf8: "INSERT", "DELETE";
 *               "UPDATE_BEFORE" and "UPDATE_AFTER" for a row a snapshot
 *               deletes and inserts with the same identifier fields, when
 *               the schema has them), "_change_ordinal" (int32, 0 for the
 *               first snapshot after from) and "_commit_snapshot_id"
 *               (int64). Rows a rewrite carries over unchanged are no
 *               change; "replace" snapshots (compaction) change nothing.
 *               "columns" names top-level columns and the change columns;
 *               "filter" applies to the rows on both sides of a change;
 *               "limit" counts changes. Its tasks (floe_scan_plan, _task:
 *               a snapshot's changes, or one file's when nothing needs
 *               matching) are read by floe_task_stream; floe_task_io_open,
 *               floe_scan_add_filter and floe_scan_metrics refuse a
 *               changelog (FLOE_UNSUPPORTED); floe_scan_count reads it.
 * I/O and memory (defaults suit local disks and object stores alike):
 *   "buffer_bytes": <int64>  decoded batches an ordered parallel stream
 *               holds for the tasks after the one being returned (268435456).
 *   "coalesce_gap": <int64>  byte ranges this close are fetched in one
 *               request (1048576; -1: one request per column chunk).
 *   "max_request": <int64>   largest merged request (33554432).
 *   "io_concurrency": <int>  requests of one file in flight (8).
 *   "prefetch_bytes": <int64> bytes one file reads ahead of decoding, the
 *               next row group (134217728; -1: none).
 * A stream also opens the next tasks' files (footer read) while the
 * running ones decode.
 *   "memory_limit": <int64>  bounds what the scan holds at once, for files
 *               with huge row groups or a host with little memory:
 *               decoded batches waiting, read-ahead, requests, column
 *               chunks (then read page by page through windows instead of
 *               whole) and one page (a file claiming a larger page is
 *               FLOE_FORMAT, refused before allocating). At least
 *               16777216; 0 (default: the table's) is none. Smaller
 *               explicit settings above stay.
 * Deadlines:
 *   "timeout_ms": <int64>    bounds planning (this call) and each stream,
 *               from its opening to its end (the host's own pace counts):
 *               past it the call fails with FLOE_TIMEOUT, a stream's
 *               get_next with ETIMEDOUT. Default: the table's timeout_ms;
 *               0 is none. floe_scan_cancel stops the scan at any time.
 */
floe_status floe_scan_open(floe_table* table, const char* scan_json, floe_scan** out);

/* The Arrow schema of every batch the scan's streams return. Each field's
 * metadata carries its Iceberg field id under "PARQUET:field_id". Timestamps
 * are us or ns, with time zone "UTC" for timestamptz; uuid is
 * fixed_size_binary(16). out must point at writable memory; the caller
 * releases it. */
floe_status floe_scan_schema(floe_scan* scan, struct ArrowSchema* out);

/* The number of tasks (units of work) the scan has. A task reads about
 * "split_size" bytes: one data file, a byte range of a larger file (the
 * row groups whose middle lies in the range), or several small files.
 * Reading every task, in order, reads the scan's rows in the order of
 * floe_scan_stream with "ordered" true. */
floe_status floe_scan_plan(floe_scan* scan, int64_t* task_count);

/* The number of rows the scan returns (deletes, filter and limit
 * applied). When no planned file has deletes or a filter left to apply,
 * the manifests' record counts answer it and no data file is opened;
 * else the rows are read, decoding only what the filter and deletes
 * need. The scan is not consumed. */
floe_status floe_scan_count(floe_scan* scan, int64_t* rows);

/* Task i (0 <= i < task_count), serialised: a self-contained byte string
 * any floe process can read with floe_task_stream. The bytes are a new
 * buffer to free with floe_bytes_free. A task carries its files' residual
 * filters and every filter added to the scan (floe_scan_add_filter) before
 * this call, but not the scan's read settings: pass its "limit",
 * "batch_size" and "verify_crc" in floe_task_stream's (or
 * floe_task_io_open's) options to read the task as the scan would. The
 * bytes are versioned JSON; a floe that does not know their
 * version refuses them (FLOE_INVALID_ARGUMENT) rather than misread them. */
floe_status floe_scan_task(floe_scan* scan, int64_t i, uint8_t** bytes, size_t* len);

/* Stream every batch of the scan (all its tasks, up to its limit). out must
 * point at writable memory; the caller releases the stream. Each call opens
 * a new, independent stream. Stream callbacks return 0 or an errno value
 * (EIO, ENOENT, EINVAL, ENOSYS; ECANCELED after floe_scan_cancel,
 * ETIMEDOUT past timeout_ms) with get_last_error describing it. */
floe_status floe_scan_stream(floe_scan* scan, struct ArrowArrayStream* out);

/* floe_scan_stream with this stream's own read settings: options_json
 * {"batch_size": N} (the most rows a batch holds, instead of the scan's;
 * not for a changelog scan) or NULL/"{}" for the scan's. A consumer that
 * copies each batch away (a pandas frame of numbers) reads fewer, larger
 * batches; one that overlaps its work with the decoding, smaller ones.
 * Unknown keys and a negative size are FLOE_INVALID_ARGUMENT. */
floe_status floe_scan_stream_options(floe_scan* scan, const char* options_json, struct ArrowArrayStream* out);

/* Tighten a scan, before or while its streams are read (say, once a join's
 * build side knows its keys): from then on the scan returns only rows that
 * match its own filter AND every added one. filter is row_filter text, or,
 * when its first non-space character is '{', a REST JSON expression object
 * (the two forms of the "filter" scan option).
 *
 * Streams opened after the call apply it to every row. Streams already
 * being read apply it to the data files, row groups and pages they have not
 * started; rows already returned stay returned, and a row an earlier filter
 * dropped never comes back. So a stream returns at least the rows matching
 * every filter, and at most those matching the filters it opened with.
 *
 * Safe to call from any thread, including while other threads are reading
 * streams of this scan (that is what it is for).
 *
 * A filter that is empty, does not parse, or names a column the scan's
 * snapshot does not have is FLOE_INVALID_ARGUMENT, and the scan is left as
 * it was. */
floe_status floe_scan_add_filter(floe_scan* scan, const char* filter);

/* What the scan has pruned and read so far, summed over every stream of
 * the scan, as a JSON object of integer counters in a new string to free
 * with floe_string_free:
 *   "manifests_skipped", "files_skipped"   ruled out at planning without
 *                                          being read;
 *   "files_planned"                        data files left to read;
 *   "row_groups_read", "row_groups_skipped", "pages_skipped",
 *   "bytes_read", "bytes_skipped"          Parquet units decoded, and those
 *                                          never decoded because statistics,
 *                                          dictionaries, bloom filters or the
 *                                          page index showed no row matches
 *                                          (compressed bytes);
 *   "rows_filtered", "rows_deleted"        rows decoded then dropped by the
 *                                          filter and by deletes;
 *   "rows_returned"                        rows the streams returned;
 *   "tasks_planned", "task_bytes_planned", the scan's tasks (floe_scan_plan)
 *   "tasks_done", "task_bytes_done"        and the bytes of their files they
 *                                          cover, and those of the tasks
 *                                          read to their end: how far a
 *                                          read is (the CLI's status line).
 * New counters may be added. Safe to call from any thread at any time,
 * including while streams of the scan are read. */
floe_status floe_scan_metrics(floe_scan* scan, char** json_out);

/* Cancel the scan: every stream opened from it, and every call on it
 * running or to come that plans, reads or counts (floe_scan_plan, _task,
 * _add_filter, _count, _stream), stops with FLOE_CANCELLED (a stream's
 * get_next returns ECANCELED), its workers and requests in flight
 * included; floe_scan_schema and floe_scan_metrics still answer.
 * Callable from any thread, while another thread is inside get_next;
 * cancelling twice is FLOE_OK. The scan still has to be freed. */
floe_status floe_scan_cancel(floe_scan* scan);

/* Release a scan. Streams opened from it stay usable. Freeing NULL is
 * FLOE_OK; freeing twice is FLOE_INVALID_ARGUMENT. */
floe_status floe_scan_free(floe_scan* scan);

/* ------------------------------------------------------------------------
 * Metadata tables
 * ------------------------------------------------------------------------ */

/* Stream one of the table's metadata tables, named as Java and pyiceberg
 * name them: "snapshots", "history", "metadata_log_entries", "refs",
 * "manifests", "all_manifests", "entries", "all_entries", "files",
 * "data_files", "delete_files", "all_files", "all_data_files",
 * "all_delete_files", "partitions", "position_deletes" (a kind this floe
 * does not have is FLOE_INVALID_ARGUMENT, the message listing those it
 * has). Their columns and types are Java's; timestamps are us with time
 * zone "UTC". Rows are read from the table handle's version as the stream
 * goes, a batch at a time: a large table's entries are never all held.
 *
 * options_json may be NULL or "{}" (every column, the current snapshot).
 * Keys (unknown keys are refused), as in floe_scan_open:
 *   "columns":  ["snapshot_id", ...]  top-level columns, in that order;
 *               omit for all.
 *   "filter":   row_filter text ("record_count > 1000 and
 *               partition.x = 3") or a REST JSON expression over the
 *               metadata table's columns (nested ones by dotted name).
 *   "snapshot_id": <int64> | "ref": "name"  the snapshot a per-snapshot
 *               table (files, entries, manifests, partitions, …) looks at;
 *               refused (FLOE_INVALID_ARGUMENT) by tables of the whole
 *               history (snapshots, history, refs, all_*), as in Java. An
 *               unknown snapshot or ref is FLOE_NOT_FOUND.
 *   "limit": <int64>  at most that many rows (0: none).
 *   "batch_size": <int>  rows per batch (default 4096).
 *   "case_insensitive": true  (or "case_sensitive": false) match columns
 *               and filter names ignoring case.
 *   "timeout_ms": <int64>  bounds the stream from this call to its end
 *               (get_next then returns ETIMEDOUT); default the table's.
 * out must point at writable memory; the caller releases the stream, which
 * stays usable after the table handle is freed. Stream errors are as
 * floe_scan_stream's. */
floe_status floe_inspect(floe_table* table, const char* kind, const char* options_json,
                         struct ArrowArrayStream* out);

/* Plan a metadata table of manifest entries ("files", "data_files",
 * "delete_files", "all_files", "all_data_files", "all_delete_files",
 * "entries", "all_entries") as tasks to read in parallel, here or in other
 * processes: each task reads some of the manifests floe_inspect would read
 * (the same ones, pruned by the filter alike), consecutive, about
 * "task_size" bytes of them (a larger manifest is a task of its own).
 * Reading every task with floe_task_stream, in order, returns
 * floe_inspect's rows in its order; a "limit" bounds each task, and the
 * limit across tasks is the caller's. Other kinds are FLOE_UNSUPPORTED
 * (read them with floe_inspect).
 *
 * options_json takes floe_inspect's keys ("timeout_ms" bounds the
 * planning) and "task_size": <int64> manifest bytes per task (0 or absent:
 * 8 MiB, Iceberg's target size of a manifest). *tasks_json is a new string
 * to free with floe_string_free: a JSON array of task objects, each of
 * which, written alone as JSON text, is a serialised task for
 * floe_task_stream; "[]" when there is nothing to read (no snapshot, a
 * limit of 0). A task carries the table's schemas and partition specs and
 * its manifests' paths, and needs no table handle to be read. The tasks are
 * versioned JSON (key "inspect_version"); a floe that does not know their
 * version refuses them (FLOE_INVALID_ARGUMENT). */
floe_status floe_inspect_plan(floe_table* table, const char* kind, const char* options_json,
                              char** tasks_json);

/* ------------------------------------------------------------------------
 * Tasks, possibly in another process
 * ------------------------------------------------------------------------ */

/* Stream the batches of one serialised task (from floe_scan_task, maybe in
 * another process or on another machine): its files or byte ranges one
 * after another, in order; positions (_pos, _row_id) and deletes are those
 * of the whole files. options_json takes the same "location_map", "s3",
 * "properties", "timeout_ms" and "memory_limit" keys as floe_table_open,
 * telling how to reach the files from here, and the read settings of this
 * process, which a task does not carry:
 *   "limit": <int64>       at most that many rows from the task (pass the
 *       scan's "limit" to read a task as the scan would; the limit across
 *       tasks is the caller's to enforce). Default: none.
 *   "batch_size": <int>    rows per batch (default 65536).
 *   "verify_crc": true     check the pages' CRC checksums.
 * NULL or "{}" when the paths in the task are valid as they are. A task
 * serialised by a floe before these keys existed carries the scan's
 * limit, batch_size and verify_crc itself; they apply where options_json
 * does not give them. A task of floe_inspect_plan (an element of its
 * array) is read here too: its metadata table's rows from its manifests,
 * whose paths are as the table's metadata writes them, so the table's
 * "location_map" is needed wherever the table needed one; it carries its
 * read's limit and batch_size, which options_json's replace. */
floe_status floe_task_stream(const uint8_t* task, size_t len, const char* options_json,
                             struct ArrowArrayStream* out);

/* Host-driven I/O: a task read whose bytes the host fetches itself, for an
 * engine with its own I/O layer and cache. Open the serialised task, then
 * loop: floe_task_needed_ranges names byte ranges of the task's files
 * (paths as the task names them); fetch them and hand each in with
 * floe_task_fill; ask again until the count is 0 (usually two rounds: the
 * footers and delete files, then the column chunks the read touches after
 * pruning by the task's filter). floe_task_io_stream then decodes from the
 * filled bytes alone and makes no request of its own; a read of bytes not
 * filled fails the stream with an error saying which. */
typedef struct floe_task_io floe_task_io;

typedef struct floe_byte_range {
  const char* path;
  int64_t offset;
  int64_t length;
} floe_byte_range;

/* options_json: NULL, "{}", or the read settings of floe_task_stream's
 * options ("limit", "batch_size", "verify_crc"); the ranges asked for are
 * those a read with them touches. */
floe_status floe_task_io_open(const uint8_t* task, size_t len, const char* options_json,
                              floe_task_io** out);

/* *ranges (count entries) stays valid until the next
 * floe_task_needed_ranges on io or floe_task_io_free. */
floe_status floe_task_needed_ranges(floe_task_io* io, const floe_byte_range** ranges,
                                    size_t* count);

/* Hand in len bytes of path at offset; they are copied during the call. */
floe_status floe_task_fill(floe_task_io* io, const char* path, int64_t offset, const uint8_t* data,
                           size_t len);

floe_status floe_task_io_stream(floe_task_io* io, struct ArrowArrayStream* out);

floe_status floe_task_io_free(floe_task_io* io);

/* ------------------------------------------------------------------------
 * Arrow PyCapsule Interface support, for bindings that create Python
 * capsules without a compiled extension (the ctypes binding does). These
 * call CPython's PyCapsule_GetPointer, found in the running process, so
 * they work only inside a Python interpreter.
 * ------------------------------------------------------------------------ */

/* Zeroed, malloc'd structures to hand to a capsule. */
struct ArrowArrayStream* floe_arrow_stream_new(void);
struct ArrowSchema* floe_arrow_schema_new(void);

/* The names PyCapsules of each kind must carry (static strings). */
const char* floe_capsule_stream_name(void);  /* "arrow_array_stream" */
const char* floe_capsule_schema_name(void);  /* "arrow_schema" */

/* PyCapsule destructors: release the structure unless a consumer moved it
 * out (release == NULL), then free it. Pass their addresses as the
 * destructor to PyCapsule_New. */
void floe_capsule_release_stream(void* capsule);
void floe_capsule_release_schema(void* capsule);

/* ------------------------------------------------------------------------
 * A binding's objects from Arrow buffers in one C loop, for bindings with
 * no compiled extension (the ctypes binding's to_pandas), in place of one
 * interpreted step per value.
 * ------------------------------------------------------------------------ */

/* Dictionary-encodes the n values of an Arrow binary or utf8 array, value i
 * being data[offsets[i] .. offsets[i+1]) (n+1 offsets, data_len bytes of
 * data). codes (n of them; NULL only when n is 0) gets each value's code,
 * codes counted from 0 in the order the values first appear; firsts (room
 * for min(n, max_distinct); NULL only when that is 0) the first row
 * holding each code's value. *distinct is the number of
 * distinct values, or -1 (codes and firsts then partly written) as soon as
 * there are more than max_distinct: a column of mostly distinct values is
 * given up early. Offsets that go backwards or leave data are
 * FLOE_INVALID_ARGUMENT. Needs no interpreter. */
floe_status floe_binary_dictionary(const int64_t* offsets, int64_t n, const uint8_t* data, int64_t data_len,
                                   int64_t max_distinct, int32_t* codes, int64_t* firsts, int64_t* distinct);

/* CPython only, called holding the GIL (ctypes.PyDLL). out holds n owned
 * references (an object array's Nones); each is released and replaced by
 * value i's object: a str (text != 0; strict UTF-8) or bytes of
 * data[starts[i] .. ends[i]). Returns n; or the index of the value that
 * failed, with a Python exception set (UnicodeDecodeError; ValueError for
 * offsets outside data_len bytes; 0 with ValueError for a negative n or a
 * NULL array when n > 0); or -1 outside CPython. */
int64_t floe_py_binary_objects(const int64_t* starts, const int64_t* ends, const uint8_t* data, int64_t data_len,
                               int64_t n, int32_t text, void** out);

/* CPython only, as floe_py_binary_objects: out[i] becomes factor * int
 * (PyNumber_Multiply of values[i] made a Python int). With factor the
 * Decimal 1E-scale, a decimal column's exact values, in the caller's
 * decimal context. */
int64_t floe_py_int64_products(const int64_t* values, int64_t n, void* factor, void** out);

/* CPython only, as floe_py_binary_objects: out[i] becomes objects[codes[i]]
 * (a new reference), codes being n int32 (code_bytes 4) or int64 (8)
 * indexes into the n_objects objects; a code outside them is ValueError. */
int64_t floe_py_take_objects(void* const* objects, int64_t n_objects, const void* codes, int32_t code_bytes, int64_t n,
                             void** out);

/* Swaps a[i] and b[i] for i < n: two object arrays' references moved
 * between them in one call (no reference count changes, no interpreter
 * needed), so nothing runs between the two halves of the move. */
void floe_py_swap_objects(void** a, void** b, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* FLOE_H */
