package main

import (
	"fmt"
	"io"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/reader/scan"
)

// filterRun is one peer's measurement of one scenario.
type filterRun struct {
	Scenario string `json:"scenario"`
	Peer     string `json:"peer"`
	// Status is "ok", "WRONG" (rows or sum differ from the generator's
	// answer: the time is not a measurement of the same work) or
	// "error: ...".
	Status      string   `json:"status"`
	CPUSeconds  float64  `json:"cpu_s,omitempty"`
	WallSeconds float64  `json:"wall_s,omitempty"`
	Result      checksum `json:"result"`
	// floe only: bytes read through its FileIO (all files, and data files
	// alone), the share of the table's bytes, and floe's own metrics.
	BytesRead      *int64        `json:"bytes_read,omitempty"`
	DataBytesRead  *int64        `json:"data_bytes_read,omitempty"`
	BytesReadShare *float64      `json:"bytes_read_share,omitempty"`
	FloeMetrics    *scan.Metrics `json:"floe_metrics,omitempty"`
}

type filterResults struct {
	Time      string          `json:"time"`
	GoVersion string          `json:"go_version"`
	Threads   int             `json:"threads"`
	Repeat    int             `json:"repeat"`
	Table     lineitem.Params `json:"table"`
	// TableBytes is the data files plus the metadata directory;
	// DataBytes the data files alone.
	TableBytes int64             `json:"table_bytes"`
	DataBytes  int64             `json:"data_bytes"`
	Scenarios  []filterScenario  `json:"scenarios"`
	Runs       []filterRun       `json:"runs"`
	Ratios     map[string]string `json:"ratios"`
	Targets    []string          `json:"targets"`
	Mismatches []string          `json:"wrong_results,omitempty"`
}

func (r *filterResults) run(scenario, peer string) *filterRun {
	for i := range r.Runs {
		if r.Runs[i].Scenario == scenario && r.Runs[i].Peer == peer {
			return &r.Runs[i]
		}
	}
	return nil
}

// judge works out the ratios and checks the targets.
func (r *filterResults) judge() {
	full := r.run("full", "floe")
	fullOK := full != nil && full.Status == "ok"
	if c := r.run("clustered", "floe"); c != nil {
		if c.Status == "ok" && c.BytesReadShare != nil {
			r.Targets = append(r.Targets, fmt.Sprintf("clustered 1%%: floe reads ≤ %.0f%% of the table's bytes: %.2f%% (%s of %s) — %s",
				100*clusteredBytesTarget, 100**c.BytesReadShare, bytesText(uint64(*c.BytesRead)), bytesText(uint64(r.TableBytes)),
				verdict(*c.BytesReadShare <= clusteredBytesTarget)))
		} else {
			r.Targets = append(r.Targets, "clustered 1%: floe reads ≤ 3% of the table's bytes: no valid measurement — NOT met")
		}
	}
	if u := r.run("unclustered", "floe"); u != nil {
		if u.Status == "ok" && fullOK {
			ratio := u.CPUSeconds / full.CPUSeconds
			r.Ratios["floe unclustered/full"] = fmt.Sprintf("%.2f×", ratio)
			r.Targets = append(r.Targets, fmt.Sprintf("unclustered 1%%: floe CPU ≤ %.1f× its unfiltered scan: %.2f× — %s",
				unclusteredCPUTarget, ratio, verdict(ratio <= unclusteredCPUTarget)))
		} else {
			r.Targets = append(r.Targets, "unclustered 1%: floe CPU ≤ 0.5× its unfiltered scan: no valid measurement — NOT met")
		}
	}
	for _, s := range r.Scenarios {
		floe := r.run(s.Name, "floe")
		if fullOK && floe != nil && floe.Status == "ok" && s.Name != "full" {
			r.Ratios["floe "+s.Name+"/full"] = fmt.Sprintf("%.2f×", floe.CPUSeconds/full.CPUSeconds)
		}
		for _, peer := range s.Peers {
			p := r.run(s.Name, peer)
			if peer == "floe" || p == nil {
				continue
			}
			key := "floe/" + peer + " " + s.Name
			switch {
			case p.Status != "ok":
				r.Ratios[key] = "n/a (" + peer + " " + shortStatus(p.Status) + ")"
			case floe == nil:
				r.Ratios[key] = "n/a (floe not run)"
			case floe.Status != "ok":
				r.Ratios[key] = "n/a (floe " + shortStatus(floe.Status) + ")"
			default:
				r.Ratios[key] = fmt.Sprintf("%.2f×", floe.CPUSeconds/p.CPUSeconds)
			}
		}
	}
}

func (r *filterResults) print(w io.Writer) {
	fmt.Fprintf(w, "\nfilters: lineitem %d rows, %d files × %d row groups, %s (data files %s); every column of the matching rows; 1 thread, best of %d; %s\n\n",
		r.Table.Rows, r.Table.Files, r.Table.RowGroupsPerFile, bytesText(uint64(r.TableBytes)), bytesText(uint64(r.DataBytes)), r.Repeat, r.GoVersion)
	for _, s := range r.Scenarios {
		filter := s.Filter
		if filter == "" {
			filter = "(no filter)"
		}
		share := 100 * float64(s.Expected.Rows) / float64(max(r.Table.Rows, 1))
		fmt.Fprintf(w, "  %-11s %s — %d rows (%.2f%%), sum(l_partkey) %d\n", s.Name, filter, s.Expected.Rows, share, s.Expected.SumPartKey)
	}
	fmt.Fprintf(w, "\n%-11s %-10s %8s %8s %10s %16s %22s  %s\n", "scan", "peer", "CPU s", "wall s", "rows", "sum(l_partkey)", "read from storage", "status")
	for _, run := range r.Runs {
		if run.Status != "ok" && run.Status != "WRONG" {
			fmt.Fprintf(w, "%-11s %-10s %8s %8s %10s %16s %22s  %s\n", run.Scenario, run.Peer, "-", "-", "-", "-", "-", shortStatus(run.Status))
			continue
		}
		cpu := fmt.Sprintf("%.3f", run.CPUSeconds)
		if run.Status == "WRONG" {
			cpu = "(" + cpu + ")"
		}
		read := ""
		if run.BytesRead != nil {
			read = fmt.Sprintf("%s (%.2f%%)", bytesText(uint64(*run.BytesRead)), 100**run.BytesReadShare)
		}
		fmt.Fprintf(w, "%-11s %-10s %8s %8.3f %10d %16d %22s  %s\n", run.Scenario, run.Peer, cpu, run.WallSeconds, run.Result.Rows, run.Result.SumPartKey, read, run.Status)
	}
	fmt.Fprintln(w, "\nread from storage: the bytes floe's FileIO handed out (counted by a wrapper, metadata included) and their")
	fmt.Fprintln(w, "share of the table's bytes. floe's own metrics, for comparison:")
	for _, run := range r.Runs {
		if m := run.FloeMetrics; m != nil {
			fmt.Fprintf(w, "  %-11s files %d planned, %d skipped; row groups %d read, %d skipped; %d pages skipped; bytes read %s, skipped %s\n",
				run.Scenario, m.FilesPlanned, m.FilesSkipped, m.RowGroupsRead, m.RowGroupsSkipped, m.PagesSkipped,
				bytesText(uint64(m.BytesRead)), bytesText(uint64(m.BytesSkipped)))
		}
	}
	fmt.Fprintln(w)
	for _, s := range r.Scenarios {
		if v, ok := r.Ratios["floe "+s.Name+"/full"]; ok {
			fmt.Fprintf(w, "floe %-11s / floe full  = %s\n", s.Name, v)
		}
		for _, peer := range s.Peers {
			if v, ok := r.Ratios["floe/"+peer+" "+s.Name]; ok {
				fmt.Fprintf(w, "floe / %-10s %-11s = %s\n", peer, s.Name, v)
			}
		}
	}
	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\nfilter targets:")
		for _, t := range r.Targets {
			fmt.Fprintln(w, "  "+t)
		}
	}
	for _, m := range r.Mismatches {
		fmt.Fprintln(w, "WRONG RESULT: "+m)
	}
}
