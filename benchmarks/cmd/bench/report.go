package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/floedb/floe/benchmarks/lineitem"
)

type peerResult struct {
	Peer            string   `json:"peer"`
	FullCPUSeconds  float64  `json:"full_cpu_s"`
	FullSysSeconds  float64  `json:"full_sys_cpu_s"`
	FullWallSeconds float64  `json:"full_wall_s"`
	FullGoAlloc     *uint64  `json:"full_go_alloc_bytes,omitempty"`
	TwoCPUSeconds   float64  `json:"two_col_cpu_s"`
	TwoSysSeconds   float64  `json:"two_col_sys_cpu_s"`
	TwoWallSeconds  float64  `json:"two_col_wall_s"`
	TwoGoAlloc      *uint64  `json:"two_col_go_alloc_bytes,omitempty"`
	Full            checksum `json:"full_checksum"`
	Two             checksum `json:"two_col_checksum"`
}

type results struct {
	Time        string            `json:"time"`
	GoVersion   string            `json:"go_version"`
	CPUs        int               `json:"cpus"`
	Threads     int               `json:"threads"`
	Repeat      int               `json:"repeat"`
	Table       lineitem.Params   `json:"table"`
	DataBytes   int64             `json:"data_file_bytes"`
	DecodedFull int64             `json:"decoded_arrow_bytes_full"`
	DecodedTwo  int64             `json:"decoded_arrow_bytes_two_col"`
	Peers       []peerResult      `json:"peers"`
	Ratios      map[string]string `json:"floe_ratios"`
	Targets     []string          `json:"targets"`
	Mismatches  []string          `json:"mismatches,omitempty"`
}

func newResults(t *lineitem.Table, dataBytes int64, repeat int) *results {
	return &results{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Threads: 1, Repeat: repeat, Table: t.Params, DataBytes: dataBytes, Ratios: map[string]string{},
	}
}

func (r *results) add(p peer, full, two sample) {
	pr := peerResult{
		Peer:           p.name,
		FullCPUSeconds: full.CPU.Seconds(), FullSysSeconds: full.SysCPU.Seconds(), FullWallSeconds: full.Wall.Seconds(),
		TwoCPUSeconds: two.CPU.Seconds(), TwoSysSeconds: two.SysCPU.Seconds(), TwoWallSeconds: two.Wall.Seconds(),
		Full: full.Result, Two: two.Result,
	}
	if p.goAllocMeaningful {
		pr.FullGoAlloc, pr.TwoGoAlloc = &full.GoAlloc, &two.GoAlloc
	}
	if p.name == "floe" {
		r.DecodedFull, r.DecodedTwo = full.Result.DecodedBytes, two.Result.DecodedBytes
	}
	r.Peers = append(r.Peers, pr)
}

func (r *results) peer(name string) *peerResult {
	for i := range r.Peers {
		if r.Peers[i].Peer == name {
			return &r.Peers[i]
		}
	}
	return nil
}

// check compares every peer's checksums with the first one's and works
// out floe's ratios and the targets.
func (r *results) check() {
	if len(r.Peers) == 0 {
		return
	}
	ref := r.Peers[0]
	for _, p := range r.Peers[1:] {
		if p.Full != ref.Full && (p.Full.Rows != ref.Full.Rows || p.Full.SumPartKey != ref.Full.SumPartKey) {
			r.Mismatches = append(r.Mismatches, fmt.Sprintf("%s full scan saw %v, %s saw %v", p.Peer, p.Full, ref.Peer, ref.Full))
		}
		if p.Two.Rows != ref.Two.Rows || p.Two.SumPartKey != ref.Two.SumPartKey {
			r.Mismatches = append(r.Mismatches, fmt.Sprintf("%s two-column scan saw %v, %s saw %v", p.Peer, p.Two, ref.Peer, ref.Two))
		}
	}
	floe := r.peer("floe")
	if floe == nil {
		return
	}
	for _, p := range r.Peers {
		if p.Peer == "floe" {
			continue
		}
		r.Ratios["floe/"+p.Peer+" full"] = fmt.Sprintf("%.2f×", floe.FullCPUSeconds/p.FullCPUSeconds)
		r.Ratios["floe/"+p.Peer+" 2-col"] = fmt.Sprintf("%.2f×", floe.TwoCPUSeconds/p.TwoCPUSeconds)
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	if d := r.peer("duckdb"); d != nil {
		ratio := floe.FullCPUSeconds / d.FullCPUSeconds
		r.Targets = append(r.Targets, fmt.Sprintf("floe full scan within 1.0× DuckDB's CPU: %.2f× — %s", ratio, verdict(ratio <= 1.0)))
	}
	if ig := r.peer("iceberg-go"); ig != nil {
		ratio := ig.FullCPUSeconds / floe.FullCPUSeconds
		r.Targets = append(r.Targets, fmt.Sprintf("≥3× less CPU than iceberg-go (full scan): %.2f× less — %s", ratio, verdict(ratio >= 3)))
	}
	if floe.FullGoAlloc != nil && r.DecodedFull > 0 {
		share := float64(*floe.FullGoAlloc) / float64(r.DecodedFull)
		r.Targets = append(r.Targets, fmt.Sprintf("Go allocations per full scan well under (<10%%) the decoded size: %s vs %s decoded (%.1f%%) — %s",
			bytesText(*floe.FullGoAlloc), bytesText(uint64(r.DecodedFull)), 100*share, verdict(share < 0.1)))
		// "Well under" is taken as below a tenth.
	}
}

func (r *results) print(w io.Writer) {
	fmt.Fprintf(w, "\nlineitem: %d rows, %d files × %d row groups, %s of Parquet (snappy); 1 thread; best of %d; %s, %d CPUs\n\n",
		r.Table.Rows, r.Table.Files, r.Table.RowGroupsPerFile, bytesText(uint64(r.DataBytes)), r.Repeat, r.GoVersion, r.CPUs)
	fmt.Fprintf(w, "%-11s %11s %10s %11s %11s %14s %14s\n", "peer", "full CPU s", "(sys)", "2-col CPU s", "full wall s", "full Go alloc", "2-col Go alloc")
	for _, p := range r.Peers {
		fmt.Fprintf(w, "%-11s %11.3f %10.3f %11.3f %11.3f %14s %14s\n", p.Peer, p.FullCPUSeconds, p.FullSysSeconds, p.TwoCPUSeconds,
			p.FullWallSeconds, allocText(p.FullGoAlloc), allocText(p.TwoGoAlloc))
	}
	fmt.Fprintf(w, "\n(floe = batches from mallocator, as the C API; floe-go = Go allocator. Decoded Arrow size: full %s, 2-col %s)\n",
		bytesText(uint64(r.DecodedFull)), bytesText(uint64(r.DecodedTwo)))
	if floe := r.peer("floe"); floe != nil {
		fmt.Fprintln(w)
		for _, p := range r.Peers {
			if p.Peer != "floe" {
				fmt.Fprintf(w, "floe/%-11s full = %s   2-col = %s\n", p.Peer, r.Ratios["floe/"+p.Peer+" full"], r.Ratios["floe/"+p.Peer+" 2-col"])
			}
		}
	}
	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\ntargets:")
		for _, t := range r.Targets {
			fmt.Fprintln(w, "  "+t)
		}
	}
	for _, m := range r.Mismatches {
		fmt.Fprintln(w, "MISMATCH: "+m)
	}
}

func (r *results) writeJSON(path string) error { return writeJSON(path, r) }

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func allocText(b *uint64) string {
	if b == nil {
		return "n/a (C heap)"
	}
	return bytesText(*b)
}

func bytesText(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// publish prints a section's results and, when jsonPath is set, saves
// them there as JSON with the printed report beside it as .txt; false when
// saving failed.
func publish(what, jsonPath string, res interface{ print(io.Writer) }, logf func(string, ...any)) bool {
	var report bytes.Buffer
	fmt.Fprintln(&report, strings.TrimSpace("go run ./cmd/bench "+strings.Join(os.Args[1:], " ")))
	res.print(io.MultiWriter(os.Stdout, &report))
	if jsonPath == "" {
		return true
	}
	if err := writeJSON(jsonPath, res); err != nil {
		logf("bench: %v", err)
		return false
	}
	txt := strings.TrimSuffix(jsonPath, filepath.Ext(jsonPath)) + ".txt"
	if err := os.WriteFile(txt, report.Bytes(), 0o644); err != nil {
		logf("bench: %v", err)
		return false
	}
	fmt.Printf("\n%s results written to %s and %s\n", what, jsonPath, txt)
	return true
}
