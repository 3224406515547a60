package main

import (
	"context"
	"errors"

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
	opts := srv.OptionsVia(proxy.URL)
	measureStoreRequests(ctx, &res, srv, proxy, tbl, table.Options{GCS: &opts}, scans)
	return res
}
