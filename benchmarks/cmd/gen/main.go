// Command gen writes the benchmark's lineitem-like Iceberg table and the
// tables derived from it with deletes (see package lineitem), or leaves
// them alone when they already exist with the same parameters.
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
	deletes := flag.Bool("deletes", true, "also derive the position delete, deletion vector and equality delete tables")
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
	if *deletes {
		dt, err := lineitem.GenerateDeletes(t, log.Printf)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		for _, d := range dt.Tables {
			fmt.Println(d.MetadataPath)
		}
	}
}
