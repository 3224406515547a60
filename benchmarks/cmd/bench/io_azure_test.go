package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// On Azure too each scan's requests are counted with and without
// coalescing, and coalescing saves requests on the scans that read many
// column chunks; the proxy sees every request floe counts, and the report
// prints the part.
func TestIOAzureRequests(t *testing.T) {
	tbl := smallIOTable(t)
	scans, err := ioScans(tbl.Params)
	if err != nil {
		t.Fatal(err)
	}
	st := measureAzureRequests(context.Background(), tbl, scans)
	if strings.Contains(st.Status, "not installed") && os.Getenv("FLOE_REQUIRE_AZURE") != "1" {
		t.Skip(st.Status)
	}
	checkStoreRequests(t, st, scans)
}
