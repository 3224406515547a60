package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/floedb/floe/internal/version"
)

// commandHelp is each command's usage, in the order floe's own usage
// lists them: `floe CMD --help` (or -h, or `floe help CMD`) prints one,
// with what every command takes, and `floe` prints them all.
var commandHelp = []struct{ name, text string }{
	{"info", `floe info  TABLE [--json]
             the table's format version, location, schema, partition
             spec, sort order, properties and snapshots`},
	{"files", `floe files TABLE [--snapshot ID | --as-of MS | --ref NAME] [--json]
             the data and delete files of a snapshot (default: current)`},
	{"scan", `floe scan  TABLE [--columns a,b.c] [--snapshot ID | --as-of MS | --ref NAME]
             [--filter EXPR] [--ignore-case] [--limit N] [--batch-size N]
             [--threads N] [--verify-crc] [--format jsonl|csv|table] [--stats]
             [--output FILE.parquet|.csv|.jsonl] [--memory-limit 256MiB]
             EXPR: "a < 10 and b in ('x', 'y') and c is not null and d like 'ab%'"
             (and/or/not, strings in single quotes) or an Iceberg REST JSON
             expression
             --stats: what the scan pruned and read, as JSON on stderr
             [--from-snapshot A] [--to-snapshot B]: an incremental append
             scan, the rows the append snapshots after A up to B (default:
             the snapshot chosen, else the current one) added; overwrites
             and deletes between are skipped and no deletes applied
             --changelog: every row change of those snapshots instead (all
             of them without --from-snapshot), with _change_type (INSERT,
             DELETE, UPDATE_BEFORE/AFTER by identifier fields),
             _change_ordinal and _commit_snapshot_id columns`},
	{"inspect", `floe inspect TABLE KIND [--columns a,b] [--filter EXPR]
             [--snapshot ID | --ref NAME] [--limit N] [--batch-size N]
             [--ignore-case] [--format jsonl|csv|table]
             a metadata table, with Java's and pyiceberg's columns. KIND:
             snapshots, history, metadata_log_entries, refs, manifests,
             all_manifests, entries, all_entries, files, data_files,
             delete_files, all_files, all_data_files, all_delete_files,
             partitions, position_deletes. EXPR is over its columns (as
             scan's; nested by dotted name: "partition.x = 3 and
             record_count > 1000"); --snapshot/--ref apply to per-snapshot
             tables (files, entries, manifests, partitions, …)
             floe inspect TABLE health [--skip-orphans]: what the table
             needs (small files, deletes, dangling deletes, manifests,
             snapshots past retention, orphan files, stale statistics),
             one JSON object, changing nothing`},
	{"create", `floe create TABLE --schema SCHEMA.json [--partition COLUMN[:TRANSFORM]]…
             [--property K=V]… [--format-version N] [--create-namespace]
             SCHEMA.json: an Iceberg schema; TRANSFORM: identity (default),
             year, month, day, hour, bucket[N], truncate[W]
             --create-namespace: in a catalog, create the table's namespace
             when it does not exist (else that is an error)`},
	{"append", `floe append TABLE FILE.parquet|FILE.jsonl [--token T] [--property K=V]…
             [--partition COLUMN[:TRANSFORM]]… [--evolve] [--create-namespace]
             [--branch NAME] [--wap-id ID] [--stage]
             writes the rows as data files and commits them; a table that
             does not exist is created with the file's schema (and the
             --partition fields); in a catalog its namespace must exist
             unless --create-namespace is given. Columns bind by name; one
             the table lacks is refused unless --evolve adds it first.
             --token makes the commit idempotent: a retry with the same
             token commits nothing. --property adds a snapshot summary entry`},
	{"add-files", `floe add-files TABLE FILE.parquet… [--token T] [--property K=V]…
             [--branch NAME] [--wap-id ID] [--stage]
             registers existing Parquet files as data files, without
             rewriting them: metrics from their footers, columns by field
             id (or by name, giving the table a name mapping), identity
             partitions from name=value directories or from statistics`},
	{"expire", `floe expire TABLE [--older-than 5d|36h|MS] [--retain-last N] [--keep-files]
             removes old snapshots and the files only they referenced`},
	{"delete", `floe delete TABLE EXPR [--mode copy-on-write|merge-on-read] [--token T]
             [--property K=V]… [--branch NAME] [--wap-id ID] [--stage]
             deletes the rows EXPR selects, in one snapshot; --mode
             overrides the table's write.delete.mode (default copy-on-write)`},
	{"upsert", `floe upsert TABLE FILE.parquet|FILE.jsonl [--on K1,K2]
             [--mode merge-on-read|copy-on-write|equality-deletes]
             [--no-update] [--no-insert] [--token T] [--property K=V]…
             [--branch NAME] [--wap-id ID] [--stage]
             merges the file's rows by key (--on, else the identifier
             fields): rows whose key matches replace the live rows, the
             others are inserted, rows equal to the live one are skipped;
             one snapshot. Prints {"command", "snapshot_id", "committed",
             "token_found", "rows_updated", "rows_inserted", "rows_deleted"}`},
	{"compact", `floe compact TABLE [--strategy binpack|sort|zorder|hilbert] [--sort-order-id N]
             [--zorder-columns a,b] [--output-spec-id N]
             [--target-file-size 512MiB] [--min-file-size SIZE]
             [--max-file-size SIZE] [--min-input-files N] [--rewrite-all]
             [--delete-file-threshold N] [--max-group-size SIZE]
             [--filter EXPR] [--partial-progress] [--max-commits N]
             [--concurrency N] [--token T] [--branch NAME] [--dry-run]
             rewrites small files (and files with many deletes) of each
             partition into files near the target size (default: the
             table's write.target-file-size-bytes, else 512MiB; min 75%,
             max 180% of it; groups of at least 5 files), every delete
             applied, and drops delete files nothing needs any more; one
             "replace" snapshot, or with --partial-progress up to
             --max-commits (10) as groups finish. --filter limits it to
             the files that may hold rows EXPR selects; --dry-run prints
             the groups only; --strategy sort writes each group sorted by
             the table's sort order (or --sort-order-id); zorder and
             hilbert order each group's rows along that curve over
             --zorder-columns. The new files are partitioned by the
             table's default spec, or --output-spec-id's (files of other
             specs are rewritten into it). Prints the result as one JSON
             object`},
	{"remove-orphans", `floe remove-orphans TABLE [--dry-run] [--older-than 3d|36h|MS] [--force]
             [--location DIR]
             deletes files under the table's location that no snapshot or
             metadata file references (leftovers of failed writes) and that
             were last modified before --older-than (default 3d; under 1h
             needs --force: a write may be in flight); --location limits it
             to a directory in the table; --dry-run lists them only.
             Refused when gc.enabled is false. Prints one JSON object`},
	{"rewrite-manifests", `floe rewrite-manifests TABLE [--target-size 8MiB] [--token T]
             [--branch NAME] [--property K=V]…
             regroups the manifests by partition into manifests near the
             target size (default commit.manifest.target-size-bytes), in
             one "replace" snapshot; nothing when each is one already.
             Prints one JSON object`},
	{"rewrite-deletes", `floe rewrite-deletes TABLE [--position | --convert-equality] [--token T] [--branch NAME] [--property K=V]…
             removes delete files (and deletion vectors) that apply to no
             live data file, in one "replace" snapshot; --position instead
             merges each partition's position delete files into one (v2)
             or into one deletion vector per data file (v3);
             --convert-equality turns equality deletes into position
             deletes (v2) or deletion vectors (v3). Prints one JSON
             object`},
	{"stats", `floe stats TABLE [--columns a,b.c] [--snapshot ID] [--no-ndv] [--no-partition-stats]
             computes each column's number of distinct values (theta
             sketches, default every top-level primitive column) of the
             snapshot (default current), writes them as a Puffin
             statistics file and registers it in the table; on a
             partitioned table also writes and registers its partition
             statistics file (per spec and partition: data, delete and
             deletion-vector counts, from the manifests alone). --no-ndv
             and --no-partition-stats skip either. A table with
             write.statistics.on-commit=true gets both after each append,
             delete and upsert too. Prints one JSON object`},
	{"maintain", `floe maintain TABLE [--dry-run] [--skip-orphans]
             [--min-equality-delete-files N] [--min-position-delete-files N]
             reads the table's health and runs what it needs, in this
             order: compact (rewrite_data_files), convert equality deletes
             (when at least --min-equality-delete-files, default 1, apply
             to live data; then compact again), merge position delete
             files (when at least --min-position-delete-files, default 5,
             can merge on v2; on v3 any becomes deletion vectors), remove
             dangling deletes, rewrite manifests, expire snapshots (the
             table's retention), remove orphan files (older than 3 days),
             compute statistics (when the table keeps them: column
             sketches and, when partitioned, the partition statistics
             file); each judged on the table the earlier ones left. A
             negative threshold never runs that action. --dry-run only
             reports. Prints one JSON object: the health, and each action
             with its reason and result`},
	{"alter", `floe alter TABLE ACTION [ARGS]… [ACTION [ARGS]…]…
             changes the schema, partition spec, sort order, properties or
             format version: every action given in one commit (consecutive
             schema actions make one new schema, partition actions one new
             spec), or nothing when any is refused. ACTION is
               add-column NAME TYPE [--after COL|--before COL|--first]
                          [--default JSON] [--doc TEXT] [--required]
               rename-column NAME NEW_NAME | drop-column NAME
               update-column NAME [TYPE] [--doc TEXT] [--default JSON]
                          (TYPE: int→long, float→double, a wider decimal;
                          --default: the write-default, v3)
               make-optional NAME | make-required NAME
               move-column NAME --first|--before COL|--after COL
               set-identifier-fields [COL]…  (the row key; none: no key)
               add-partition-field COL[:TRANSFORM] [--name NAME]
               drop-partition-field NAME|COL:TRANSFORM
               rename-partition-field NAME NEW_NAME
               set-sort-order [COL[:TRANSFORM][:asc|desc][:nulls-first|nulls-last]]…
                          (no column: unsorted)
               set-property KEY=VALUE | unset-property KEY
               upgrade --format-version N
             NAME, COL: dotted for a nested column (a.b); TYPE: int, long,
             string, decimal(P,S), timestamptz, … or an Iceberg JSON type
             ('{"type":"list",…}'); JSON: a value in the spec's JSON form
             (1, "x", "2026-12-06"); TRANSFORM: identity (default), year,
             month, day, hour, bucket[N], truncate[W], void`},
	{"branch", `floe branch create|replace|drop|rename TABLE NAME [NEW_NAME] [--snapshot ID]
             [--min-snapshots-to-keep N] [--max-snapshot-age-ms MS]
             [--max-ref-age-ms MS]
             create: a branch at --snapshot (default: main's snapshot);
             replace: points an existing branch at --snapshot; the
             retention flags say what expire keeps of the branch`},
	{"tag", `floe tag create|replace|drop TABLE NAME [--snapshot ID] [--max-ref-age-ms MS]
             create: a tag at --snapshot (default: main's snapshot)`},
	{"rollback", `floe rollback TABLE --to-snapshot ID | --to-timestamp MS|RFC3339
             moves main back to one of its ancestors (by --to-timestamp:
             the last one committed before that time); writes no snapshot`},
	{"cherry-pick", `floe cherry-pick TABLE SNAPSHOT_ID [--branch NAME] [--property K=V]…
             applies a snapshot onto main (or --branch): publishes one
             staged with --wap-id (once per wap id), or copies an append or
             a partition replacement made on another branch; when the
             snapshot's parent is the branch's head, the branch moves to it`},
	{"fast-forward", `floe fast-forward TABLE BRANCH --to REF
             moves BRANCH forward to REF's snapshot, of which BRANCH's must
             be an ancestor (write-audit-publish: fast-forward main --to
             audit)`},
	{"catalog", `floe catalog namespaces [PARENT] | tables NS | create-namespace NS
             | drop-namespace NS | drop-table NS.T [--purge]
             | rename NS.T NS.U | register NS.T METADATA_LOCATION`},
}

// writeCommands take --branch, --wap-id and --stage, which writeHelp
// describes.
var writeCommands = map[string]bool{"append": true, "add-files": true, "delete": true, "upsert": true}

const writeHelp = `append, add-files, delete and upsert take:
  --branch NAME         commit to that branch (created from main's snapshot
                        when missing), reading it for what the change needs
  --wap-id ID           record a write-audit-publish id in the snapshot; on
                        a table whose write.wap.enabled is true the snapshot
                        is staged: no branch moves, it reads with --snapshot
                        ID and floe cherry-pick publishes it (without the
                        property the commit is refused unless --stage)
  --stage               stage the snapshot, with a wap id or without`

// changeCommands print a changeResult, which changeHelp describes.
var changeCommands = map[string]bool{"alter": true, "branch": true, "tag": true, "rollback": true, "cherry-pick": true, "fast-forward": true}

const changeHelp = `alter, branch, tag, rollback, cherry-pick and fast-forward print one JSON
object: {"command", "actions": [the actions, e.g. "add-column",
"create-branch"], "committed": false when the table already was as asked,
"metadata_location", what is current after it: "format_version",
"schema_id", "spec_id", "sort_order_id", "snapshot_id" (main's, or null),
"snapshot_ids": [snapshots it wrote], "refs": {the branches and tags it
changed: {"type", "snapshot_id", "previous_snapshot_id" (null when new)},
or null when dropped}, and for cherry-pick "published_wap_id" when there
was one}. A refused change prints the error on stderr, exits 1 and
commits nothing.`

const commonHelp = `TABLE is a metadata JSON file, a table directory, or a dataset name
"ns.table" under the warehouse (--warehouse DIR or $FLOE_WAREHOUSE); with
a catalog it is the catalog's ns.table (a.b.table for nested namespaces).

Every command takes:
  --quiet / --progress  no status line on a terminal / a status line even
                        when stderr is not one (scan --output, append,
                        add-files and expire draw one)
  --catalog URI         tables live in this catalog (or $FLOE_CATALOG):
                        sqlite:///abs/path.db or sqlite:relative.db,
                        postgresql://…, http(s)://… (REST), or a warehouse
                        directory, file://… or s3://…; a table appended to
                        that does not exist is created in it (its
                        namespace only with --create-namespace); a SQLite
                        database is created only by a command that writes
  --catalog NAME        the catalog NAME of .pyiceberg.yaml ($PYICEBERG_HOME,
                        ~ or .) and PYICEBERG_CATALOG__NAME__KEY variables,
                        resolved as pyiceberg does (--catalog-prop over
                        the variables over the file)
  --catalog-prop K=V    a catalog property (repeatable): name, warehouse,
                        credential, token, s3.endpoint, s3.access-key-id,
                        timeout-ms (bounds opening the catalog, default
                        60 s, and each PostgreSQL connection, default
                        15 s), …
  --map PREFIX=TARGET   read locations starting with PREFIX from TARGET
                        instead (repeatable; for tables copied elsewhere).
                        /p, file:/p and file:///p are one path
  --no-relocate         read a table found away from the location its
                        metadata records as recorded (and --map) only; by
                        default, when the recorded location does not
                        exist, it is read from where the table was found
  -h, --help            this command's usage`

// usage is floe's own: every command, then what they all take.
func usage() string {
	var b strings.Builder
	b.WriteString("floe " + version.String + " — read and commit Apache Iceberg tables\n\nusage:\n")
	for _, c := range commandHelp {
		if c.name == "catalog" || c.name == "alter" {
			b.WriteString("\n")
		}
		b.WriteString("  " + c.text + "\n")
	}
	b.WriteString("  floe help COMMAND | floe COMMAND --help | floe --version\n\n")
	b.WriteString(writeHelp + "\n\n" + changeHelp + "\n\n")
	b.WriteString(commonHelp + "\n")
	return b.String()
}

// printCommandHelp prints one command's usage and what every command
// takes; false for a command floe does not have.
func printCommandHelp(out io.Writer, name string) bool {
	for _, c := range commandHelp {
		if c.name == name {
			extra := ""
			switch {
			case changeCommands[name]:
				extra = changeHelp + "\n\n"
			case writeCommands[name]:
				extra = writeHelp + "\n\n"
			}
			fmt.Fprintf(out, "usage: %s\n\n%s%s\n", c.text, extra, commonHelp)
			return true
		}
	}
	return false
}

// asksForHelp reports whether a command's arguments hold -h or --help
// before any "--" (after which everything is positional).
func asksForHelp(argv []string) bool {
	for _, a := range argv {
		switch a {
		case "--":
			return false
		case "-h", "--help", "-help":
			return true
		}
	}
	return false
}
