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
             --stats: what the scan pruned and read, as JSON on stderr`},
	{"create", `floe create TABLE --schema SCHEMA.json [--partition COLUMN[:TRANSFORM]]…
             [--property K=V]… [--format-version N] [--create-namespace]
             SCHEMA.json: an Iceberg schema; TRANSFORM: identity (default),
             year, month, day, hour, bucket[N], truncate[W]
             --create-namespace: in a catalog, create the table's namespace
             when it does not exist (else that is an error)`},
	{"append", `floe append TABLE FILE.parquet|FILE.jsonl [--token T] [--property K=V]…
             [--partition COLUMN[:TRANSFORM]]… [--evolve] [--create-namespace]
             writes the rows as data files and commits them; a table that
             does not exist is created with the file's schema (and the
             --partition fields); in a catalog its namespace must exist
             unless --create-namespace is given. Columns bind by name; one
             the table lacks is refused unless --evolve adds it first.
             --token makes the commit idempotent: a retry with the same
             token commits nothing. --property adds a snapshot summary entry`},
	{"add-files", `floe add-files TABLE FILE.parquet… [--token T] [--property K=V]…
             registers existing Parquet files as data files, without
             rewriting them: metrics from their footers, columns by field
             id (or by name, giving the table a name mapping), identity
             partitions from name=value directories or from statistics`},
	{"expire", `floe expire TABLE [--older-than 5d|36h|MS] [--retain-last N] [--keep-files]
             removes old snapshots and the files only they referenced`},
	{"delete", `floe delete TABLE EXPR [--mode copy-on-write|merge-on-read] [--token T]
             [--property K=V]…
             deletes the rows EXPR selects, in one snapshot; --mode
             overrides the table's write.delete.mode (default copy-on-write)`},
	{"catalog", `floe catalog namespaces [PARENT] | tables NS | create-namespace NS
             | drop-namespace NS | drop-table NS.T [--purge]
             | rename NS.T NS.U | register NS.T METADATA_LOCATION`},
}

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
		if c.name == "catalog" {
			b.WriteString("\n")
		}
		b.WriteString("  " + c.text + "\n")
	}
	b.WriteString("  floe help COMMAND | floe COMMAND --help | floe --version\n\n")
	b.WriteString(commonHelp + "\n")
	return b.String()
}

// printCommandHelp prints one command's usage and what every command
// takes; false for a command floe does not have.
func printCommandHelp(out io.Writer, name string) bool {
	for _, c := range commandHelp {
		if c.name == name {
			fmt.Fprintf(out, "usage: %s\n\n%s\n", c.text, commonHelp)
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
