package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
)

// storeServer is what part 1 needs of an emulator (gcstest's, azuritetest's
// servers): uploads, and the store's location of a path.
type storeServer interface {
	Location(elems ...string) string
	UploadDir(ctx context.Context, localDir, prefix string) error
}

// measureStoreRequests uploads the table's data and metadata files to srv
// as "lineitem" and reads each scan coalesced and per chunk through proxy,
// with opts (the store's settings, pointing at the proxy) and a location
// map from the table's directory to the upload; res gets the runs and its
// status, "ok" or why the part did not run.
func measureStoreRequests(ctx context.Context, res *ioStoreRequests, srv storeServer, proxy *s3test.FaultProxy,
	tbl *lineitem.Table, opts table.Options, scans []ioScan) {
	for _, sub := range []string{"data", "metadata"} {
		if err := srv.UploadDir(ctx, filepath.Join(tbl.Location, sub), srv.Location("lineitem", sub)); err != nil {
			res.Status = "not run: " + err.Error()
			return
		}
	}
	rel, err := filepath.Rel(tbl.Location, tbl.MetadataPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		res.Status = fmt.Sprintf("not run: metadata %s is outside the table directory %s", tbl.MetadataPath, tbl.Location)
		return
	}
	opts.LocationMap = map[string]string{tbl.Location: srv.Location("lineitem")}
	res.Status = "ok"
	res.Requests = measureRequests(ctx, proxy, srv.Location("lineitem", filepath.ToSlash(rel)), opts, scans)
}

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
