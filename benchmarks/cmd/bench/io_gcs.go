package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/gcstest"
	"github.com/floedb/floe/internal/s3test"
)

// measureGCSRequests is part 1 on GCS: the table's data and metadata files
// uploaded to fake-gcs-server, opened through the location map, and each
// scan read coalesced and per chunk behind the counting proxy.
func measureGCSRequests(ctx context.Context, tbl *lineitem.Table, scans []ioScan) ioStoreRequests {
	res := ioStoreRequests{Store: "GCS", Server: "fake-gcs-server " + gcstest.Version}
	srv, err := gcstest.Launch()
	if err != nil {
		res.Status = "not run: " + err.Error()
		if errors.Is(err, gcstest.ErrNoServer) {
			res.Status = "not run: fake-gcs-server is not installed (go install github.com/fsouza/fake-gcs-server@" + gcstest.Version + ")"
		}
		return res
	}
	defer srv.Close()
	proxy, err := s3test.LaunchFaultProxy(srv.Endpoint)
	if err != nil {
		res.Status = "not run: " + err.Error()
		return res
	}
	defer proxy.Close()
	for _, sub := range []string{"data", "metadata"} {
		if err := srv.UploadDir(ctx, filepath.Join(tbl.Location, sub), srv.Location("lineitem", sub)); err != nil {
			res.Status = "not run: " + err.Error()
			return res
		}
	}
	rel, err := filepath.Rel(tbl.Location, tbl.MetadataPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		res.Status = fmt.Sprintf("not run: metadata %s is outside the table directory %s", tbl.MetadataPath, tbl.Location)
		return res
	}
	opts := srv.OptionsVia(proxy.URL)
	topts := table.Options{GCS: &opts, LocationMap: map[string]string{tbl.Location: srv.Location("lineitem")}}
	res.Status = "ok"
	res.Requests = measureRequests(ctx, proxy, srv.Location("lineitem", filepath.ToSlash(rel)), topts, scans)
	return res
}
