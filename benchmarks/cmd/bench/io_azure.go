package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/azuritetest"
	"github.com/floedb/floe/internal/s3test"
)

// measureAzureRequests is part 1 on Azure Blob Storage: the table's data and
// metadata files uploaded to Azurite, opened through the location map
// (abfs://), and each scan read coalesced and per chunk behind the
// counting proxy.
func measureAzureRequests(ctx context.Context, tbl *lineitem.Table, scans []ioScan) ioStoreRequests {
	res := ioStoreRequests{Store: "Azure", Server: "Azurite " + azuritetest.Version}
	dir, err := os.MkdirTemp("", "floe-bench-io-azure-")
	if err != nil {
		res.Status = "not run: " + err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	srv, err := azuritetest.Launch(dir)
	if err != nil {
		res.Status = "not run: " + err.Error()
		if errors.Is(err, azuritetest.ErrNoServer) {
			res.Status = "not run: azurite-blob is not installed (npm install --prefix ~/.cache/floe/azurite-" +
				azuritetest.Version + " azurite@" + azuritetest.Version + ")"
		}
		return res
	}
	defer srv.Close()
	proxy, err := s3test.LaunchFaultProxy("http://" + srv.Authority)
	if err != nil {
		res.Status = "not run: " + err.Error()
		return res
	}
	defer proxy.Close()
	opts := srv.OptionsVia(strings.TrimPrefix(proxy.URL, "http://"))
	measureStoreRequests(ctx, &res, srv, proxy, tbl, table.Options{Azure: &opts}, scans)
	return res
}
