// Command gen writes the benchmark's lineitem-like Iceberg table (see
// package lineitem), or leaves it alone when it already exists with the
// same parameters.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/floedb/floe/benchmarks/lineitem"
)

func main() {
	p := lineitem.DefaultParams
	out := flag.String("out", "data/lineitem", "table directory")
	flag.Int64Var(&p.Rows, "rows", p.Rows, "rows in the table")
	flag.IntVar(&p.Files, "files", p.Files, "Parquet data files")
	flag.IntVar(&p.RowGroupsPerFile, "row-groups", p.RowGroupsPerFile, "row groups per file")
	flag.Uint64Var(&p.Seed, "seed", p.Seed, "random seed")
	flag.Parse()
	log.SetFlags(0)
	t, err := lineitem.Generate(*out, p, log.Printf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if !t.Generated {
		log.Printf("table %s exists with the same parameters; not regenerated", t.Location)
	}
	fmt.Println(t.MetadataPath)
}
