// Command floe inspects and reads Apache Iceberg tables.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

const usage = `floe — read and commit Apache Iceberg tables

usage:
  floe info  TABLE [--json]
  floe files TABLE [--snapshot ID | --as-of MS | --ref NAME] [--json]
  floe scan  TABLE [--columns a,b.c] [--snapshot ID | --as-of MS | --ref NAME]
             [--filter EXPR] [--ignore-case] [--limit N] [--batch-size N]
             [--threads N] [--verify-crc] [--format jsonl|csv|table] [--stats]
             [--output FILE.parquet|.csv|.jsonl] [--memory-limit 256MiB]
             EXPR: "a < 10 and b in ('x', 'y') and c is not null and d like 'ab%'"
             or an Iceberg REST JSON expression
             --stats: what the scan pruned and read, as JSON on stderr
  floe create TABLE --schema SCHEMA.json [--partition COLUMN[:TRANSFORM]]…
             [--property K=V]… [--format-version N]
             SCHEMA.json: an Iceberg schema; TRANSFORM: identity (default),
             year, month, day, hour, bucket[N], truncate[W]
  floe append TABLE FILE.parquet|FILE.jsonl [--token T] [--property K=V]…
             [--partition COLUMN[:TRANSFORM]]…
             writes the rows as data files and commits them; a table that
             does not exist is created with the file's schema (and the
             --partition fields). --token makes the commit idempotent: a
             retry with the same token commits nothing. --property adds a
             snapshot summary entry
  floe add-files TABLE FILE.parquet… [--token T] [--property K=V]…
             registers existing Parquet files as data files, without
             rewriting them: metrics from their footers, columns by field
             id (or by name, giving the table a name mapping), identity
             partitions from name=value directories or from statistics
  floe expire TABLE [--older-than 5d|36h|MS] [--retain-last N] [--keep-files]
             removes old snapshots and the files only they referenced
  floe delete TABLE EXPR [--mode copy-on-write|merge-on-read] [--token T]
             [--property K=V]…
             deletes the rows EXPR selects, in one snapshot; --mode
             overrides the table's write.delete.mode (default copy-on-write)

  floe catalog namespaces [PARENT] | tables NS | create-namespace NS
             | drop-namespace NS | drop-table NS.T [--purge]
             | rename NS.T NS.U | register NS.T METADATA_LOCATION

TABLE is a metadata JSON file, a table directory, or a dataset name
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
                        that does not exist is created in it, with its
                        namespace
  --catalog-prop K=V    a catalog property (repeatable): name, warehouse,
                        credential, token, s3.endpoint, s3.access-key-id, …
  --map PREFIX=TARGET   read locations starting with PREFIX from TARGET
                        instead (repeatable; for tables copied elsewhere).
                        /p, file:/p and file:///p are one path
  --no-relocate         read a table found away from the location its
                        metadata records as recorded (and --map) only; by
                        default, when the recorded location does not
                        exist, it is read from where the table was found
`

// command runs with the rest of the arguments; out is for the data, errOut
// for anything else.
type command func(ctx context.Context, a []string, out, errOut io.Writer) error

var commands = map[string]command{
	"info":      runInfo,
	"files":     runFiles,
	"scan":      runScan,
	"create":    runCreate,
	"append":    runAppend,
	"add-files": runAddFiles,
	"expire":    runExpire,
	"delete":    runDelete,
	"catalog":   runCatalog,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status; a failure, even a
// panic, is reported as one line on stderr.
func run(argv []string, out, errOut io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(errOut, "floe: internal error: %v\n", r)
			if os.Getenv("FLOE_DEBUG") != "" {
				errOut.Write(debug.Stack())
			}
			status = 70
		}
	}()
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "-h" || argv[0] == "--help" {
		fmt.Fprint(out, usage)
		if len(argv) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[argv[0]]
	if !ok {
		fmt.Fprintf(errOut, "floe: unknown command %q\n\n%s", argv[0], usage)
		return 2
	}
	if err := cmd(context.Background(), argv[1:], out, errOut); err != nil {
		fmt.Fprintf(errOut, "floe %s: %v\n", argv[0], err)
		return 1
	}
	return 0
}
