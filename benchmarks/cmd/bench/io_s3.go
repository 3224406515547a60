package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	icebergio "github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // registers s3:// with iceberg-go's IO
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
)

// ioStore is the S3 side of the section: versitygw holding the table's
// data and metadata files, and a proxy in front of it that counts (and
// delays) every request.
type ioStore struct {
	srv   *s3test.Server
	proxy *s3test.FaultProxy
	dir   string
	// mappedMetadata is the uploaded metadata file, which still names the
	// local paths; floe opens it with locationMap, local prefix → S3.
	mappedMetadata string
	locationMap    map[string]string
	// nativeMetadata is a table committed afresh over the same uploaded
	// data files with S3 paths in its metadata, for iceberg-go, which has
	// no location map; both peers of the latency comparison read it.
	nativeMetadata string
}

func startIOStore(ctx context.Context, tbl *lineitem.Table) (_ *ioStore, err error) {
	dir, err := os.MkdirTemp("", "floe-bench-io-s3-")
	if err != nil {
		return nil, err
	}
	s := &ioStore{dir: dir}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.srv, err = s3test.Launch(dir); err != nil {
		return nil, err
	}
	if s.proxy, err = s3test.LaunchFaultProxy(s.srv.Endpoint); err != nil {
		return nil, err
	}
	// The generator's directory also holds other tables (deletes/); only
	// this one's files go up.
	for _, sub := range []string{"data", "metadata"} {
		if err := s.srv.UploadDir(ctx, filepath.Join(tbl.Location, sub), s.srv.Location("lineitem", sub)); err != nil {
			return nil, err
		}
	}
	rel, err := filepath.Rel(tbl.Location, tbl.MetadataPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("metadata %s is outside the table directory %s", tbl.MetadataPath, tbl.Location)
	}
	s.mappedMetadata = s.srv.Location("lineitem", filepath.ToSlash(rel))
	s.locationMap = map[string]string{tbl.Location: s.srv.Location("lineitem")}
	if s.nativeMetadata, err = s.commitNative(ctx, tbl); err != nil {
		return nil, fmt.Errorf("committing the S3-native copy for iceberg-go: %w", err)
	}
	return s, nil
}

// commitNative creates s3://bucket/lineitem-native and appends the
// uploaded data files to it, entries (sizes, metrics) as the local table
// has them, paths on S3. It returns the new metadata file.
func (s *ioStore) commitNative(ctx context.Context, tbl *lineitem.Table) (string, error) {
	local, err := table.Open(ctx, tbl.MetadataPath, table.Options{})
	if err != nil {
		return "", err
	}
	plan, err := local.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		return "", err
	}
	var files []manifest.DataFile
	for _, task := range plan.Tasks {
		df := task.File
		rel, err := filepath.Rel(tbl.Location, df.FilePath)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("data file %s is outside the table directory %s", df.FilePath, tbl.Location)
		}
		df.FilePath = s.srv.Location("lineitem", filepath.ToSlash(rel))
		files = append(files, df)
	}
	s3, err := fileio.NewS3(ctx, s.srv.Options())
	if err != nil {
		return "", err
	}
	native, err := table.Create(ctx, s3, s.srv.Location("lineitem-native"), lineitem.Schema(), nil, nil, nil, local.Metadata.FormatVersion)
	if err != nil {
		return "", err
	}
	if _, err := native.Append(ctx, files, table.CommitOptions{}); err != nil {
		return "", err
	}
	return native.MetadataLocation, nil
}

func (s *ioStore) close() {
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
	os.RemoveAll(s.dir)
}

// floeOptions open the uploaded table through the proxy. Every scan
// opens the table afresh, so each pays for its metadata reads.
func (s *ioStore) floeOptions(mapped bool) table.Options {
	opts := s.srv.OptionsVia(s.proxy)
	o := table.Options{S3: &opts}
	if mapped {
		o.LocationMap = s.locationMap
	}
	return o
}

// icebergGoProps are iceberg-go's S3 properties for the proxy (names from
// its io package: path-style addressing unless told otherwise, which an
// endpoint on 127.0.0.1 needs).
func (s *ioStore) icebergGoProps() map[string]string {
	return map[string]string{
		icebergio.S3EndpointURL:            s.proxy.URL,
		icebergio.S3Region:                 s.srv.Region,
		icebergio.S3AccessKeyID:            s.srv.AccessKey,
		icebergio.S3SecretAccessKey:        s.srv.SecretKey,
		icebergio.S3ForceVirtualAddressing: "false",
	}
}

// ioRequestRun is one floe scan of part 1.
type ioRequestRun struct {
	Scan string `json:"scan"`
	// Fetch is "coalesced" (the default: neighbouring column chunks of a
	// row group in one request) or "per-chunk" (coalesce_gap -1).
	Fetch  string `json:"fetch"`
	Status string `json:"status"`
	// At the proxy: every request of the scan, metadata included, and the
	// response body bytes.
	ProxyRequests int64 `json:"proxy_requests"`
	ProxyBytes    int64 `json:"proxy_bytes"`
	// floe's metrics: requests and bytes of the data files.
	FloeRequests  int64    `json:"floe_requests"`
	FloeBytesRead int64    `json:"floe_bytes_read"`
	WallSeconds   float64  `json:"wall_s"`
	Result        checksum `json:"result"`
}

// measureRequests runs each scan once per fetch mode (request counts do
// not vary from run to run) through the proxy without delay.
// The table is opened at metadata with topts, which reach the store
// through proxy.
func measureRequests(ctx context.Context, proxy *s3test.FaultProxy, metadata string, topts table.Options, scans []ioScan) []ioRequestRun {
	var runs []ioRequestRun
	for _, sc := range scans {
		for _, fetch := range []string{"coalesced", "per-chunk"} {
			run := ioRequestRun{Scan: sc.Name, Fetch: fetch}
			opts, err := sc.options()
			if fetch == "per-chunk" {
				opts.CoalesceGap = -1
			}
			if err == nil {
				req0, bytes0 := proxy.Requests(), proxy.ResponseBytes()
				var m sample
				var metrics readerMetrics
				m, err = measureWall(1, func() (checksum, error) {
					sum, mt, err := floeScanOnce(ctx, metadata, topts, opts, newMallocator())
					metrics = readerMetrics{requests: mt.Requests, bytes: mt.BytesRead}
					return sum, err
				})
				run.ProxyRequests, run.ProxyBytes = proxy.Requests()-req0, proxy.ResponseBytes()-bytes0
				run.FloeRequests, run.FloeBytesRead = metrics.requests, metrics.bytes
				run.WallSeconds, run.Result = m.Wall.Seconds(), m.Result
			}
			if err != nil {
				run.Status = "error: " + err.Error()
			} else {
				run.Status = checkResult(run.Result, sc.Expected)
			}
			runs = append(runs, run)
		}
	}
	return runs
}

type readerMetrics struct{ requests, bytes int64 }

// ioLatencyRun is one peer's scan of part 2.
type ioLatencyRun struct {
	Scan        string  `json:"scan"`
	Peer        string  `json:"peer"`
	Status      string  `json:"status"`
	WallSeconds float64 `json:"wall_s,omitempty"`
	CPUSeconds  float64 `json:"cpu_s,omitempty"`
	// Requests is what the proxy saw in the last run.
	Requests int64    `json:"requests,omitempty"`
	Result   checksum `json:"result"`
}

// measureLatency times the two-column and the full scan through the
// delaying proxy, floe and iceberg-go, each with its default concurrency.
func measureLatency(ctx context.Context, store *ioStore, scans []ioScan, cfg ioConfig, logf func(string, ...any)) []ioLatencyRun {
	store.proxy.SetDelay(cfg.delay)
	defer store.proxy.SetDelay(0)
	var runs []ioLatencyRun
	for _, sc := range scans {
		if sc.Filter != "" {
			continue
		}
		for _, peer := range []string{"floe", "iceberg-go"} {
			logf("io: %s on the %s scan behind %v per request ...", peer, sc.Name, cfg.delay)
			var scan func() (checksum, error)
			switch peer {
			case "floe":
				opts, err := sc.options()
				if err != nil {
					runs = append(runs, ioLatencyRun{Scan: sc.Name, Peer: peer, Status: "error: " + err.Error()})
					continue
				}
				scan = func() (checksum, error) {
					sum, _, err := floeScanOnce(ctx, store.nativeMetadata, store.floeOptions(false), opts, newMallocator())
					return sum, err
				}
			case "iceberg-go":
				scan = icebergGoS3Scan(store.nativeMetadata, store.icebergGoProps(), sc.Columns)
			}
			run := ioLatencyRun{Scan: sc.Name, Peer: peer}
			var requests int64
			best, err := measureWall(cfg.repeat, func() (checksum, error) {
				before := store.proxy.Requests()
				sum, err := scan()
				requests = store.proxy.Requests() - before
				return sum, err
			})
			if err != nil {
				run.Status = "error: " + err.Error()
			} else {
				run.WallSeconds, run.CPUSeconds, run.Requests, run.Result = best.Wall.Seconds(), best.CPU.Seconds(), requests, best.Result
				run.Status = checkResult(best.Result, sc.Expected)
			}
			runs = append(runs, run)
		}
	}
	return runs
}

// icebergGoS3Scan reads the table with iceberg-go from its metadata file
// on S3 (a static table, no catalog), with its default concurrency.
func icebergGoS3Scan(metadataLocation string, props map[string]string, columns []string) func() (checksum, error) {
	return func() (checksum, error) {
		ctx := context.Background()
		tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "lineitem"}, metadataLocation,
			icebergio.LoadFSFunc(props, metadataLocation), nil)
		if err != nil {
			return checksum{}, err
		}
		var opts []icebergtable.ScanOption
		if columns != nil {
			opts = append(opts, icebergtable.WithSelectedFields(columns...))
		}
		_, records, err := tbl.Scan(opts...).ToArrowRecords(ctx)
		if err != nil {
			return checksum{}, err
		}
		var sum checksum
		for rec, err := range records {
			if err != nil {
				return sum, err
			}
			countRecord(rec, &sum)
			rec.Release()
		}
		return sum, nil
	}
}
