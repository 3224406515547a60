package main

import (
	"fmt"
	"io"
)

// ioStoreRequests is part 1 (requests per scan with and without
// coalescing) on an object store other than S3: its emulator on loopback,
// behind the same counting proxy.
type ioStoreRequests struct {
	Store string `json:"store"`
	// Server is the emulator it ran on, with its version.
	Server string `json:"server"`
	// Status is "ok" or why the part did not run.
	Status   string         `json:"status"`
	Requests []ioRequestRun `json:"requests,omitempty"`
}

func (s *ioStoreRequests) request(scan, fetch string) *ioRequestRun {
	for i := range s.Requests {
		if s.Requests[i].Scan == scan && s.Requests[i].Fetch == fetch {
			return &s.Requests[i]
		}
	}
	return nil
}

// judgeStores adds each store's coalescing ratios and problems.
func (r *ioResults) judgeStores() {
	for i := range r.Stores {
		st := &r.Stores[i]
		if st.Status != "ok" {
			r.Problems = append(r.Problems, st.Store+" requests "+st.Status)
			continue
		}
		for _, s := range r.Scans {
			c, p := st.request(s.Name, "coalesced"), st.request(s.Name, "per-chunk")
			if c == nil || p == nil {
				continue
			}
			for _, run := range []*ioRequestRun{c, p} {
				if run.Status != "ok" {
					r.Problems = append(r.Problems, fmt.Sprintf("%s %s %s: %s", st.Store, run.Scan, run.Fetch, run.Status))
				}
			}
			if c.Status == "ok" && p.Status == "ok" && c.ProxyRequests > 0 && c.FloeRequests > 0 {
				r.Ratios["requests per-chunk/coalesced "+st.Store+" "+s.Name] = fmt.Sprintf("%.1f× at the proxy, %.1f× by floe's metrics",
					float64(p.ProxyRequests)/float64(c.ProxyRequests), float64(p.FloeRequests)/float64(c.FloeRequests))
			}
		}
	}
}

// printStores prints part 1 again for each other store.
func (r *ioResults) printStores(w io.Writer) {
	for _, st := range r.Stores {
		fmt.Fprintf(w, "\n1 (%s). requests per scan, %s on loopback behind the same counting proxy, no delay\n", st.Store, st.Server)
		if st.Status != "ok" {
			fmt.Fprintln(w, "   "+st.Status)
			continue
		}
		printRequestRuns(w, st.Requests)
		for _, s := range r.Scans {
			if v, ok := r.Ratios["requests per-chunk/coalesced "+st.Store+" "+s.Name]; ok {
				fmt.Fprintf(w, "requests per-chunk / coalesced, %-8s = %s\n", s.Name, v)
			}
		}
	}
}
