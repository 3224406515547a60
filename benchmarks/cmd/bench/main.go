// Command bench measures floe's scan against its peers on the lineitem
// table (generated first when missing): CPU time of one thread and Go
// allocations, best of several runs, printed as a table and written as
// JSON.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/benchmarks/lineitem"
)

// twoColumns is the narrow scan: an int64 and a double column.
var twoColumns = []string{"l_partkey", "l_extendedprice"}

// twoColumnLeaves are their leaf indexes in the Parquet files.
var twoColumnLeaves = []int{lineitem.IDPartKey - 1, lineitem.IDExtendedPrice - 1}

// batchRows is the batch size of every peer that has one.
const batchRows = 64 * 1024

type peer struct {
	name    string
	full    func() (checksum, error)
	twoCols func() (checksum, error)
	// goAllocMeaningful is false for peers whose memory is not on the Go
	// heap (DuckDB).
	goAllocMeaningful bool
}

func main() {
	p := lineitem.DefaultParams
	dataDir := flag.String("data", "data/lineitem", "table directory (generated when missing)")
	flag.Int64Var(&p.Rows, "rows", p.Rows, "rows of the generated table")
	flag.IntVar(&p.Files, "files", p.Files, "data files of the generated table")
	flag.IntVar(&p.RowGroupsPerFile, "row-groups", p.RowGroupsPerFile, "row groups per file")
	repeat := flag.Int("repeat", 3, "runs per measurement; the best is kept")
	only := flag.String("peers", "", "comma-separated peers to run (default all): floe,floe-go,pqarrow,parquet-go,duckdb,iceberg-go")
	jsonOut := flag.String("json", "results/latest.json", "where to write the results as JSON (empty: nowhere)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of one extra floe full scan here")
	deletesOnly := flag.Bool("deletes", false, "run only the delete section: floe and iceberg-go on the plain, position delete, deletion vector and equality delete tables")
	skipDeletes := flag.Bool("skip-deletes", false, "leave out the delete section")
	deletesJSON := flag.String("deletes-json", "results/latest-deletes.json", "where to write the delete section's results (empty: nowhere)")
	deletesProfile := flag.String("deletes-cpuprofile", "", "write CPU profiles of one extra floe scan of the plain table and of each delete table to <this>-<kind>.prof")
	flag.Parse()
	log.SetFlags(0)

	if *foreignOnly {
		if !runForeignSection(*repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	if *writesOnly {
		if !runWriteSection(*repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	if *maintenanceOnly {
		if !runMaintenanceSection(log.Printf) {
			os.Exit(1)
		}
		return
	}
	if *planningOnly {
		if !runPlanningSection(*repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	if *commitsOnly {
		if !runCommitSection(*repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	tbl, err := lineitem.Generate(*dataDir, p, log.Printf)
	if err != nil {
		log.Fatalf("bench: %v", err)
	}
	if *filtersOnly {
		if !runFilterSection(tbl, *repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	if *ioOnly {
		if !runIOSection(tbl, *repeat, log.Printf) {
			os.Exit(1)
		}
		return
	}
	var dataBytes int64
	for _, f := range tbl.DataFiles {
		if info, err := os.Stat(f); err == nil {
			dataBytes += info.Size()
		}
	}

	var deleteTables *lineitem.DeleteTables
	if !*skipDeletes || *deletesOnly {
		if deleteTables, err = lineitem.GenerateDeletes(tbl, log.Printf); err != nil {
			log.Fatalf("bench: %v", err)
		}
	}

	// Every peer runs on one thread: Go code on one P, DuckDB with
	// threads=1, iceberg-go and floe with a concurrency of 1.
	runtime.GOMAXPROCS(1)

	if *deletesOnly {
		if !runDeleteSection(tbl, deleteTables, *repeat, *deletesJSON, *deletesProfile) {
			os.Exit(1)
		}
		return
	}

	mallocator := newMallocator()
	peers := []peer{
		{name: "floe", full: floeScan(tbl.MetadataPath, nil, mallocator), twoCols: floeScan(tbl.MetadataPath, twoColumns, mallocator), goAllocMeaningful: true},
		{name: "floe-go", full: floeScan(tbl.MetadataPath, nil, memory.DefaultAllocator), twoCols: floeScan(tbl.MetadataPath, twoColumns, memory.DefaultAllocator), goAllocMeaningful: true},
		{name: "pqarrow", full: pqarrowScan(tbl.DataFiles, nil, batchRows), twoCols: pqarrowScan(tbl.DataFiles, twoColumnLeaves, batchRows), goAllocMeaningful: true},
		{name: "parquet-go", full: parquetGoScan(tbl.DataFiles, true, 4096), twoCols: parquetGoScan(tbl.DataFiles, false, 4096), goAllocMeaningful: true},
		{name: "duckdb"},
		{name: "iceberg-go", full: icebergGoScan(tbl.MetadataPath, nil), twoCols: icebergGoScan(tbl.MetadataPath, twoColumns), goAllocMeaningful: true},
	}
	selected := map[string]bool{}
	for _, name := range strings.Split(*only, ",") {
		if name = strings.TrimSpace(name); name != "" {
			selected[name] = true
		}
	}

	res := newResults(tbl, dataBytes, *repeat)
	for _, pr := range peers {
		if len(selected) > 0 && !selected[pr.name] {
			continue
		}
		if pr.name == "duckdb" {
			db, err := openDuckDB(tbl.DataFiles)
			if err != nil {
				log.Fatalf("bench: %v", err)
			}
			defer db.db.Close()
			pr.full, pr.twoCols = db.fullScan, db.twoColumns
		}
		log.Printf("measuring %s ...", pr.name)
		full, err := measure(*repeat, pr.full)
		if err != nil {
			log.Fatalf("bench: %s full scan: %v", pr.name, err)
		}
		two, err := measure(*repeat, pr.twoCols)
		if err != nil {
			log.Fatalf("bench: %s two-column scan: %v", pr.name, err)
		}
		res.add(pr, full, two)
	}
	if *profile != "" {
		if err := profileFloe(*profile, floeScan(tbl.MetadataPath, nil, mallocator)); err != nil {
			log.Fatalf("bench: profile: %v", err)
		}
		log.Printf("CPU profile of a floe full scan written to %s", *profile)
	}

	res.check()
	res.print(os.Stdout)
	if *jsonOut != "" {
		if err := res.writeJSON(*jsonOut); err != nil {
			log.Fatalf("bench: %v", err)
		}
		fmt.Printf("\nresults written to %s\n", *jsonOut)
	}
	deletesOK := true
	if deleteTables != nil {
		deletesOK = runDeleteSection(tbl, deleteTables, *repeat, *deletesJSON, *deletesProfile)
	}
	if len(res.Mismatches) > 0 || !deletesOK {
		os.Exit(1)
	}
}

// runDeleteSection measures, prints and saves the delete section; false
// when floe returned a wrong result (a peer's wrong result is reported,
// not fatal: it is what the peer does).
func runDeleteSection(tbl *lineitem.Table, dt *lineitem.DeleteTables, repeat int, jsonOut, profilePrefix string) bool {
	res := measureDeletes(tbl, dt, repeat, []string{"floe", "iceberg-go"}, log.Printf)
	res.GoVersion = runtime.Version()
	if profilePrefix != "" {
		metadata := map[string]string{"plain": tbl.MetadataPath}
		kinds := []string{"plain"}
		for _, t := range dt.Tables {
			metadata[string(t.Kind)] = t.MetadataPath
			kinds = append(kinds, string(t.Kind))
		}
		for _, kind := range kinds {
			path := profilePrefix + "-" + kind + ".prof"
			if err := profileFloe(path, floeScan(metadata[kind], nil, newMallocator())); err != nil {
				log.Fatalf("bench: profile: %v", err)
			}
			log.Printf("CPU profile of a floe scan of the %s table written to %s", kind, path)
		}
	}
	res.print(os.Stdout)
	if jsonOut != "" {
		if err := writeJSON(jsonOut, res); err != nil {
			log.Fatalf("bench: %v", err)
		}
		fmt.Printf("\ndelete results written to %s\n", jsonOut)
	}
	for _, s := range res.Scans {
		if s.Peer == "floe" && s.Status != "ok" {
			return false
		}
	}
	return true
}

// profileFloe profiles scan, run again until a second has passed: at
// 100 samples a second, one run of a 30 ms filtered scan gave three
// samples, too few to tell anything.
func profileFloe(path string, scan func() (checksum, error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	for start := time.Now(); ; {
		if _, err := scan(); err != nil {
			return err
		}
		if time.Since(start) >= time.Second {
			return nil
		}
	}
}
