package main

import (
	"fmt"
	"io"
	"time"

	"github.com/floedb/floe/benchmarks/lineitem"
)

// The targets: a scan with deletes against the plain scan, floe CPU.
var deleteTargets = map[lineitem.DeleteKind]float64{
	lineitem.PositionDeletes: 1.1,
	lineitem.DeletionVectors: 1.1,
	lineitem.EqualityDeletes: 1.5,
}

// deleteScan is one peer's full scan of one table of the delete section.
type deleteScan struct {
	Table    string            `json:"table"` // "plain" or a delete kind
	Peer     string            `json:"peer"`
	Expected lineitem.Expected `json:"expected"`
	Result   checksum          `json:"result"`
	// Status is "ok", "WRONG" (rows or sum differ: the time is not a
	// measurement of the same work) or "error: ...".
	Status      string  `json:"status"`
	CPUSeconds  float64 `json:"cpu_s,omitempty"`
	WallSeconds float64 `json:"wall_s,omitempty"`
}

type deleteTableInfo struct {
	lineitem.DeleteTable
	Name string `json:"name"`
}

type deleteResults struct {
	Time       string            `json:"time"`
	GoVersion  string            `json:"go_version"`
	Threads    int               `json:"threads"`
	Repeat     int               `json:"repeat"`
	Table      lineitem.Params   `json:"table"`
	Plain      lineitem.Expected `json:"plain_expected"`
	Tables     []deleteTableInfo `json:"delete_tables"`
	Scans      []deleteScan      `json:"scans"`
	Ratios     map[string]string `json:"ratios"`
	Targets    []string          `json:"targets"`
	Mismatches []string          `json:"wrong_results,omitempty"`
}

// deleteTableNames are the section's tables in report order.
var deleteTableNames = []string{"plain", string(lineitem.PositionDeletes), string(lineitem.DeletionVectors), string(lineitem.EqualityDeletes)}

// measureDeletes runs floe's and iceberg-go's full scans over the plain
// table and each delete table, checks every result against what the
// generator says survives, and works out the ratios.
// floeDeleteRounds is the fewest rounds floe's delete scans run. Each
// round scans every table once, so a slow spell of this noisy VM falls on
// the plain scan and the delete scans alike instead of on one side of a
// ratio; best of three, table after table, moved the ratios by a fifth
// between runs.
const floeDeleteRounds = 5

func measureDeletes(tbl *lineitem.Table, dt *lineitem.DeleteTables, repeat int, peers []string, logf func(string, ...any)) *deleteResults {
	res := &deleteResults{
		Time: time.Now().UTC().Format(time.RFC3339), Threads: 1, Repeat: repeat, Table: tbl.Params,
		Plain: dt.Plain, Ratios: map[string]string{},
	}
	metadataOf := map[string]string{"plain": tbl.MetadataPath}
	expectedOf := map[string]lineitem.Expected{"plain": dt.Plain}
	for _, t := range dt.Tables {
		metadataOf[string(t.Kind)] = t.MetadataPath
		expectedOf[string(t.Kind)] = t.Expected
		res.Tables = append(res.Tables, deleteTableInfo{DeleteTable: t, Name: string(t.Kind)})
	}
	mallocator := newMallocator()
	scanners := map[string]func(string) func() (checksum, error){
		"floe":       func(md string) func() (checksum, error) { return floeScan(md, nil, mallocator) },
		"iceberg-go": func(md string) func() (checksum, error) { return icebergGoScan(md, nil) },
	}
	for _, peer := range peers {
		rounds := repeat
		if peer == "floe" {
			rounds = max(repeat, floeDeleteRounds)
		}
		runs := make([]func() (sample, error), len(deleteTableNames))
		for i, name := range deleteTableNames {
			logf("measuring %s on the %s table ...", peer, name)
			runs[i] = func() (sample, error) { return measure(1, scanners[peer](metadataOf[name])) }
		}
		best, errs := roundRobin(rounds, runs, func(a, b sample) bool { return a.CPU < b.CPU })
		for i, name := range deleteTableNames {
			s := deleteScan{Table: name, Peer: peer, Expected: expectedOf[name]}
			b := best[i]
			switch {
			case errs[i] != nil:
				s.Status = "error: " + errs[i].Error()
			case b.Result.Rows != s.Expected.Rows || b.Result.SumPartKey != s.Expected.SumPartKey:
				s.Status, s.Result = "WRONG", b.Result
				s.CPUSeconds, s.WallSeconds = b.CPU.Seconds(), b.Wall.Seconds()
				res.Mismatches = append(res.Mismatches, fmt.Sprintf("%s on the %s table saw %v, want %d rows, sum(l_partkey) %d",
					peer, name, b.Result, s.Expected.Rows, s.Expected.SumPartKey))
			default:
				s.Status, s.Result = "ok", b.Result
				s.CPUSeconds, s.WallSeconds = b.CPU.Seconds(), b.Wall.Seconds()
			}
			res.Scans = append(res.Scans, s)
		}
	}
	res.ratios()
	return res
}

func (r *deleteResults) scan(peer, table string) *deleteScan {
	for i := range r.Scans {
		if r.Scans[i].Peer == peer && r.Scans[i].Table == table {
			return &r.Scans[i]
		}
	}
	return nil
}

func (r *deleteResults) ratios() {
	plain := r.scan("floe", "plain")
	for _, kind := range lineitem.DeleteKinds {
		name := string(kind)
		floe := r.scan("floe", name)
		if floe == nil {
			continue
		}
		limit := deleteTargets[kind]
		if plain == nil || plain.Status != "ok" || floe.Status != "ok" {
			r.Ratios["floe "+name+"/plain"] = "n/a"
			r.Targets = append(r.Targets, fmt.Sprintf("floe %s scan ≤ %.1f× the plain scan: no valid measurement — NOT met", name, limit))
		} else {
			ratio := floe.CPUSeconds / plain.CPUSeconds
			r.Ratios["floe "+name+"/plain"] = fmt.Sprintf("%.2f×", ratio)
			r.Targets = append(r.Targets, fmt.Sprintf("floe %s scan ≤ %.1f× the plain scan: %.2f× — %s", name, limit, ratio, verdict(ratio <= limit)))
		}
	}
	for _, name := range deleteTableNames {
		floe, ig := r.scan("floe", name), r.scan("iceberg-go", name)
		if floe == nil || ig == nil {
			continue
		}
		key := "iceberg-go/floe " + name
		switch {
		case ig.Status != "ok":
			r.Ratios[key] = "n/a (iceberg-go " + shortStatus(ig.Status) + ")"
		case floe.Status != "ok":
			r.Ratios[key] = "n/a (floe " + shortStatus(floe.Status) + ")"
		default:
			r.Ratios[key] = fmt.Sprintf("%.2f× (iceberg-go uses that much more CPU)", ig.CPUSeconds/floe.CPUSeconds)
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func shortStatus(s string) string {
	if s == "WRONG" {
		return "returned wrong rows"
	}
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func (r *deleteResults) print(w io.Writer) {
	fmt.Fprintf(w, "\ndeletes: %d rows, %d files; full scans, 1 thread; every table scanned once per round, best of %d rounds (floe: of %d)\n", r.Table.Rows, r.Table.Files, r.Repeat, max(r.Repeat, floeDeleteRounds))
	for _, t := range r.Tables {
		fmt.Fprintf(w, "  %-5s v%d: %d delete file(s), %d delete records, %d rows deleted, %d survive\n",
			t.Name, t.FormatVersion, t.DeleteFiles, t.DeleteRecords, t.DeletedRows, t.Expected.Rows)
	}
	fmt.Fprintf(w, "\n%-11s %-6s %10s %10s %10s %22s  %s\n", "peer", "table", "CPU s", "wall s", "rows", "sum(l_partkey)", "status")
	for _, s := range r.Scans {
		if s.Status != "ok" && s.Status != "WRONG" {
			fmt.Fprintf(w, "%-11s %-6s %10s %10s %10s %22s  %s\n", s.Peer, s.Table, "-", "-", "-", "-", shortStatus(s.Status))
			continue
		}
		cpu := fmt.Sprintf("%.3f", s.CPUSeconds)
		if s.Status == "WRONG" {
			cpu = "(" + cpu + ")"
		}
		fmt.Fprintf(w, "%-11s %-6s %10s %10.3f %10d %22d  %s\n", s.Peer, s.Table, cpu, s.WallSeconds, s.Result.Rows, s.Result.SumPartKey, s.Status)
	}
	fmt.Fprintln(w)
	for _, kind := range lineitem.DeleteKinds {
		if v, ok := r.Ratios["floe "+string(kind)+"/plain"]; ok {
			fmt.Fprintf(w, "floe %-5s / floe plain      = %s\n", kind, v)
		}
	}
	for _, name := range deleteTableNames {
		if v, ok := r.Ratios["iceberg-go/floe "+name]; ok {
			fmt.Fprintf(w, "iceberg-go / floe on %-5s = %s\n", name, v)
		}
	}
	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\ndelete targets:")
		for _, t := range r.Targets {
			fmt.Fprintln(w, "  "+t)
		}
	}
	for _, m := range r.Mismatches {
		fmt.Fprintln(w, "WRONG RESULT: "+m)
	}
}
