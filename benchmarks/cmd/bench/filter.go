package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/floedb/floe/benchmarks/lineitem"
)

// The filter section (go run ./cmd/bench -filters; see benchmarks/FILTERS.md)
// measures filtered full-width scans of the lineitem table, every peer on
// one thread:
//
//   - full: floe without a filter, the baseline;
//   - clustered: a range of l_orderkey, the column the files are sorted
//     by, holding about 1 % of the rows: floe should read little more than
//     those rows' pages;
//   - unclustered: l_partkey <= 20000, about 1 % of the rows spread
//     evenly: nothing can be skipped, but values of rows that fail need
//     not be materialised.
//
// Each filtered scenario runs on floe (row_filter text), iceberg-go (its
// row filter) and DuckDB (read_parquet with the same predicate as WHERE);
// all return every column of the matching rows, and must return the rows
// the generator says match. floe's reads from storage are counted by a
// wrapper around its FileIO, not taken from floe's own metrics.
var (
	filtersOnly    = flag.Bool("filters", false, "run only the filter section: floe, iceberg-go and DuckDB on clustered and unclustered 1% filters, and floe's unfiltered scan")
	filtersJSON    = flag.String("filters-json", "results/latest-filter.json", "where to write the filter section's results; the printed report goes next to it as .txt (empty: nowhere)")
	filtersProfile = flag.String("filters-cpuprofile", "", "write CPU profiles of one extra floe scan of each filter scenario to <this>-<scenario>.prof")
)

// The targets for floe.
const (
	clusteredBytesTarget = 0.03 // clustered 1 %: share of the table's bytes read
	unclusteredCPUTarget = 0.5  // unclustered 1 %: CPU relative to the unfiltered scan
)

// unclusteredPartKeyMax makes l_partkey <= it hold for 1 % of the rows:
// the generator draws l_partkey uniformly from 1 to 2,000,000.
const unclusteredPartKeyMax = 20_000

// filterScenario is one scan of the section.
type filterScenario struct {
	Name string `json:"name"`
	// Filter is floe's row_filter text ("" for none); Where the same
	// predicate as DuckDB SQL.
	Filter   string            `json:"filter,omitempty"`
	Where    string            `json:"duckdb_where,omitempty"`
	Expected lineitem.Expected `json:"expected"`
	// Peers are the peers measured on it.
	Peers     []string                  `json:"peers"`
	icebergGo iceberg.BooleanExpression // iceberg-go's form
	keep      func(lineitem.FilterRow) bool
}

// filterScenarios builds the section's scans for a table and works out
// their answers by replaying the generator.
func filterScenarios(p lineitem.Params) ([]filterScenario, error) {
	lo, hi, err := lineitem.ClusteredOrderKeys(p, 0.01)
	if err != nil {
		return nil, err
	}
	orderKey, partKey := iceberg.Reference("l_orderkey"), iceberg.Reference("l_partkey")
	clustered := fmt.Sprintf("l_orderkey >= %d and l_orderkey < %d", lo, hi)
	unclustered := fmt.Sprintf("l_partkey <= %d", unclusteredPartKeyMax)
	peers := []string{"floe", "iceberg-go", "duckdb"}
	scenarios := []filterScenario{
		{Name: "full", Peers: []string{"floe"}, keep: func(lineitem.FilterRow) bool { return true }},
		{Name: "clustered", Filter: clustered, Where: clustered, Peers: peers,
			icebergGo: iceberg.NewAnd(iceberg.GreaterThanEqual(orderKey, lo), iceberg.LessThan(orderKey, hi)),
			keep:      func(r lineitem.FilterRow) bool { return r.OrderKey >= lo && r.OrderKey < hi }},
		{Name: "unclustered", Filter: unclustered, Where: unclustered, Peers: peers,
			icebergGo: iceberg.LessThanEqual(partKey, int64(unclusteredPartKeyMax)),
			keep:      func(r lineitem.FilterRow) bool { return r.PartKey <= unclusteredPartKeyMax }},
	}
	keeps := make([]func(lineitem.FilterRow) bool, len(scenarios))
	for i := range scenarios {
		keeps[i] = scenarios[i].keep
	}
	expected, err := lineitem.ExpectedWhere(p, keeps...)
	if err != nil {
		return nil, err
	}
	for i := range scenarios {
		scenarios[i].Expected = expected[i]
	}
	return scenarios, nil
}

// runFilterSection measures, prints and saves the filter section; false
// when floe returned a wrong answer (a peer's wrong answer is reported,
// not fatal).
func runFilterSection(tbl *lineitem.Table, repeat int, logf func(string, ...any)) bool {
	scenarios, err := filterScenarios(tbl.Params)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	runtime.GOMAXPROCS(1)
	res, err := measureFilters(tbl, scenarios, repeat, logf)
	if err != nil {
		logf("bench: %v", err)
		return false
	}
	if *filtersProfile != "" {
		for _, s := range scenarios {
			path := *filtersProfile + "-" + s.Name + ".prof"
			var stats floeReadStats
			if err := profileFloe(path, floeFilterScan(tbl.MetadataPath, s.Filter, newMallocator(), &stats)); err != nil {
				logf("bench: profile: %v", err)
				return false
			}
			logf("CPU profile of a floe %s scan written to %s", s.Name, path)
		}
	}
	if !publish("filter", *filtersJSON, res, logf) {
		return false
	}
	for _, r := range res.Runs {
		if r.Peer == "floe" && r.Status != "ok" {
			return false
		}
	}
	return true
}

// measureFilters runs every scenario on its peers.
func measureFilters(tbl *lineitem.Table, scenarios []filterScenario, repeat int, logf func(string, ...any)) (*filterResults, error) {
	tableBytes, dataBytes, err := tableSize(tbl)
	if err != nil {
		return nil, err
	}
	res := &filterResults{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), Threads: 1, Repeat: repeat,
		Table: tbl.Params, TableBytes: tableBytes, DataBytes: dataBytes, Scenarios: scenarios, Ratios: map[string]string{},
	}
	var db *duckDB
	defer func() {
		if db != nil {
			db.db.Close()
		}
	}()
	mallocator := newMallocator()
	for _, s := range scenarios {
		for _, peer := range s.Peers {
			logf("measuring %s on the %s scan ...", peer, s.Name)
			var scan func() (checksum, error)
			var stats floeReadStats
			switch peer {
			case "floe":
				scan = floeFilterScan(tbl.MetadataPath, s.Filter, mallocator, &stats)
			case "iceberg-go":
				scan = icebergGoFilterScan(tbl.MetadataPath, s.icebergGo)
			case "duckdb":
				if db == nil {
					if db, err = openDuckDB(tbl.DataFiles); err != nil {
						return nil, err
					}
				}
				scan = db.filteredScan(s.Where)
			default:
				return nil, fmt.Errorf("unknown peer %q", peer)
			}
			best, err := measure(repeat, scan)
			run := filterRun{Scenario: s.Name, Peer: peer}
			switch {
			case err != nil:
				run.Status = "error: " + err.Error()
			default:
				run.Result, run.CPUSeconds, run.WallSeconds = best.Result, best.CPU.Seconds(), best.Wall.Seconds()
				run.Status = "ok"
				if best.Result.Rows != s.Expected.Rows || best.Result.SumPartKey != s.Expected.SumPartKey {
					run.Status = "WRONG"
					res.Mismatches = append(res.Mismatches, fmt.Sprintf("%s on the %s scan saw %v, want %d rows, sum(l_partkey) %d",
						peer, s.Name, best.Result, s.Expected.Rows, s.Expected.SumPartKey))
				}
			}
			if peer == "floe" && err == nil {
				read := stats.data + stats.other
				share := float64(read) / float64(tableBytes)
				m := stats.metrics
				run.BytesRead, run.DataBytesRead, run.BytesReadShare, run.FloeMetrics = &read, &stats.data, &share, &m
			}
			res.Runs = append(res.Runs, run)
		}
	}
	res.judge()
	return res, nil
}

// tableSize is the size of the table's data files and metadata directory
// (manifests, manifest list, metadata JSON), and of the data files alone.
func tableSize(tbl *lineitem.Table) (total, data int64, err error) {
	for _, f := range tbl.DataFiles {
		info, err := os.Stat(f)
		if err != nil {
			return 0, 0, err
		}
		data += info.Size()
	}
	entries, err := os.ReadDir(filepath.Dir(tbl.MetadataPath))
	if err != nil {
		return 0, 0, err
	}
	total = data
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
	}
	return total, data, nil
}
