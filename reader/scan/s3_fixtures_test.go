package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/s3test"
)

// s3Fixture is a fixture table copied to S3: where it is there and the
// location map that points its foreign prefixes at the copy.
type s3Fixture struct {
	fixtures.Table
	location    string
	locationMap map[string]string
}

// fixtureStore is an object store's test server (s3test's, gcstest's, …)
// that fixtures are copied to.
type fixtureStore interface {
	Location(elems ...string) string
	Upload(t testing.TB, localDir, prefix string)
}

// reachStore sets in o what reaches the store under test: directly when
// proxy is "", else through the proxy at that URL with attempts tries per
// request.
type reachStore func(o *table.Options, proxy string, attempts int)

func reachS3(srv *s3test.Server) reachStore {
	return func(o *table.Options, proxy string, attempts int) {
		s3 := srv.Options()
		if proxy != "" {
			s3.Endpoint, s3.MaxAttempts = proxy, attempts
		}
		o.S3 = &s3
	}
}

// uploadFixtures copies testdata/fixtures to scheme://bucket/fixtures/ and
// returns every fixture table with its location and location map there.
func uploadFixtures(t *testing.T, srv fixtureStore) []s3Fixture {
	t.Helper()
	root, err := fixtures.Root()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(root, "testdata", "fixtures")
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	onS3 := func(local string) string {
		rel, err := filepath.Rel(base, local)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("%s is outside %s", local, base)
		}
		return srv.Location("fixtures", filepath.ToSlash(rel))
	}
	uploaded := map[string]bool{}
	var out []s3Fixture
	for _, fx := range all {
		m := map[string]string{}
		for prefix, target := range fx.LocationMap {
			m[prefix] = onS3(target)
			if !uploaded[target] {
				srv.Upload(t, target, onS3(target))
				uploaded[target] = true
			}
		}
		out = append(out, s3Fixture{Table: fx, location: onS3(fx.Dir), locationMap: m})
	}
	return out
}

// scanResult is what a scan gave: its schema and its rows rendered and
// sorted, or the error that ended it.
type scanResult struct {
	schema *arrow.Schema
	rows   []string
	err    error
}

func scanAll(ctx context.Context, location string, opts table.Options, sc Options) scanResult {
	tbl, err := table.Open(ctx, location, opts)
	if err != nil {
		return scanResult{err: err}
	}
	s, err := New(ctx, tbl, sc)
	if err != nil {
		return scanResult{err: err}
	}
	rr, err := s.Reader(ctx, memory.NewGoAllocator())
	if err != nil {
		return scanResult{err: err}
	}
	defer rr.Release()
	res := scanResult{schema: s.Schema()}
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = impalaValue(rec.Column(c), r)
			}
			res.rows = append(res.rows, strings.Join(row, ","))
		}
	}
	if err := rr.Err(); err != nil {
		return scanResult{err: err}
	}
	slices.Sort(res.rows)
	return res
}

// s3Scans are the scans each fixture is read with: every snapshot, and
// the current one cut into small byte-range splits read out of order.
func s3Scans(t *testing.T, fx fixtures.Table) map[string]Options {
	t.Helper()
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	unordered := false
	scans := map[string]Options{"current, small splits": {SplitSize: 64 << 10, Ordered: &unordered, Threads: 2}}
	for _, s := range tbl.Metadata.Snapshots {
		id := s.SnapshotID
		scans[fmt.Sprintf("snapshot %d", id)] = Options{SnapshotID: &id}
	}
	return scans
}

func sameScan(t *testing.T, what string, got, want scanResult) {
	t.Helper()
	if want.err != nil {
		// A fixture that lacks files (an expired snapshot's manifest list)
		// must fail on S3 as it does locally.
		if got.err == nil {
			t.Fatalf("%s: read %d rows, but the local read failed: %v", what, len(got.rows), want.err)
		}
		if errors.Is(got.err, fs.ErrNotExist) != errors.Is(want.err, fs.ErrNotExist) {
			t.Fatalf("%s: failed with %v; locally with %v", what, got.err, want.err)
		}
		return
	}
	if got.err != nil {
		t.Fatalf("%s: %v", what, got.err)
	}
	if !got.schema.Equal(want.schema) {
		t.Fatalf("%s: schema\n%s\nlocally\n%s", what, got.schema, want.schema)
	}
	if !slices.Equal(got.rows, want.rows) {
		t.Fatalf("%s: %d rows, %d locally\n got %.20q\nwant %.20q", what, len(got.rows), len(want.rows), got.rows, want.rows)
	}
}

// faultAttempts is the S3 client's try budget under the injected faults.
// Parallel reads share the proxy's every-n-th counters, so which try fails
// is close to random: at a failure rate near 0.36 per try, 16 tries fail
// together once in ten million requests.
const faultAttempts = 16

// Every fixture table, copied to S3 with its location map pointed there,
// reads exactly as from the local disk: same schema, same rows, at every
// snapshot; and again through a proxy that answers every 5th request 503
// SlowDown, cuts every 5th response body short and delays them all.
func TestS3FixturesReadAsLocally(t *testing.T) {
	srv := s3test.Start(t)
	testFixturesReadAsLocally(t, srv, reachS3(srv), s3test.StartFaultProxy(t, srv.Endpoint))
}

// testFixturesReadAsLocally is TestS3FixturesReadAsLocally on any store.
func testFixturesReadAsLocally(t *testing.T, srv fixtureStore, reach reachStore, proxy *s3test.FaultProxy) {
	start := time.Now()
	fxs := uploadFixtures(t, srv)
	t.Logf("uploaded %d fixture tables in %v", len(fxs), time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	for _, fx := range fxs {
		t.Run(fx.Name, func(t *testing.T) {
			local := table.Options{LocationMap: fx.LocationMap}
			onS3 := table.Options{LocationMap: fx.locationMap}
			reach(&onS3, "", 0)
			faulty := table.Options{LocationMap: fx.locationMap}
			reach(&faulty, proxy.URL, faultAttempts)
			for what, sc := range s3Scans(t, fx.Table) {
				want := scanAll(ctx, fx.Dir, local, sc)
				sameScan(t, what+" from S3", scanAll(ctx, fx.location, onS3, sc), want)
				proxy.SetFailEvery(5)
				proxy.SetTruncateEvery(5)
				proxy.SetDelay(time.Millisecond)
				got := scanAll(ctx, fx.location, faulty, sc)
				proxy.SetFailEvery(0)
				proxy.SetTruncateEvery(0)
				proxy.SetDelay(0)
				sameScan(t, what+" from S3 through faults", got, want)
			}
		})
	}
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
	t.Logf("%d requests through the proxy, %d answered SlowDown, %d cut short", proxy.Requests(), proxy.Failed(), proxy.Truncated())
}

// When S3 keeps failing, a fixture scan fails with an error naming the
// object and the cause, and gives no rows; when every data file read is
// cut short, the same.
func TestS3FixtureScansFailClearlyWhenS3Does(t *testing.T) {
	srv := s3test.Start(t)
	testFixtureScansFailClearly(t, srv, reachS3(srv), s3test.StartFaultProxy(t, srv.Endpoint), "s3://", "SlowDown", false)
}

// testFixtureScansFailClearly is TestS3FixtureScansFailClearlyWhenS3Does
// on any store, whose errors name objects by scheme and a failed request
// by cause. With cutsResumed, the store's client resumes a cut object
// body from where it broke off (Google's does) but not a cut metadata
// answer, so every body cut short must give exactly the rows of a clean
// scan, or an error naming the object: never other rows.
func testFixtureScansFailClearly(t *testing.T, srv fixtureStore, reach reachStore, proxy *s3test.FaultProxy, scheme, cause string, cutsResumed bool) {
	fxs := uploadFixtures(t, srv)
	ctx := context.Background()
	for _, fx := range fxs {
		t.Run(fx.Name, func(t *testing.T) {
			opts := table.Options{LocationMap: fx.locationMap}
			reach(&opts, proxy.URL, 2)
			// The table opens; then every request fails.
			tbl, err := table.Open(ctx, fx.location, opts)
			if err != nil {
				t.Fatal(err)
			}
			clean := scanOpened(ctx, tbl)
			proxy.SetFailEvery(1)
			defer proxy.SetFailEvery(0)
			res := scanOpened(ctx, tbl)
			if res.err == nil {
				t.Fatalf("every request failed, yet the scan gave %d rows", len(res.rows))
			}
			if msg := res.err.Error(); !strings.Contains(msg, scheme) || !strings.Contains(msg, cause) {
				t.Fatalf("the error does not name the object and the cause: %v", res.err)
			}
			// Every body cut short: the client retries, then gives up.
			proxy.SetFailEvery(0)
			proxy.SetTruncateEvery(1)
			defer proxy.SetTruncateEvery(0)
			if res := scanOpened(ctx, tbl); cutsResumed {
				if clean.err != nil || res.err == nil && len(res.rows) != len(clean.rows) || res.err != nil && !strings.Contains(res.err.Error(), scheme) {
					t.Fatalf("every body cut short: %d rows, %v; a clean scan gave %d rows, %v", len(res.rows), res.err, len(clean.rows), clean.err)
				}
			} else if res.err == nil {
				t.Fatalf("every body cut short, yet the scan gave %d rows", len(res.rows))
			} else if !strings.Contains(res.err.Error(), scheme) {
				t.Fatalf("the error does not name the object: %v", res.err)
			}
		})
	}
}

// scanOpened scans an opened table's current snapshot.
func scanOpened(ctx context.Context, tbl *table.Table) scanResult {
	s, err := New(ctx, tbl, Options{})
	if err != nil {
		return scanResult{err: err}
	}
	rr, err := s.Reader(ctx, memory.NewGoAllocator())
	if err != nil {
		return scanResult{err: err}
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		return scanResult{err: err}
	}
	return scanResult{rows: make([]string, n)}
}

// A warehouse on S3 resolves a dataset name to a table there.
func TestS3WarehouseDatasetNameReads(t *testing.T) {
	srv := s3test.Start(t)
	testWarehouseDatasetNameReads(t, srv, reachS3(srv))
}

// testWarehouseDatasetNameReads is TestS3WarehouseDatasetNameReads on any
// store.
func testWarehouseDatasetNameReads(t *testing.T, srv fixtureStore, reach reachStore) {
	fx, err := fixtures.Get("impala_test_default_part")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for prefix := range fx.LocationMap {
		m[prefix] = srv.Location("wh", "impala", "default_part")
	}
	srv.Upload(t, fx.Dir, srv.Location("wh", "impala", "default_part"))
	t.Setenv(table.WarehouseEnv, srv.Location("wh"))
	opts := table.Options{LocationMap: m}
	reach(&opts, "", 0)
	ctx := context.Background()
	got := scanAll(ctx, "impala.default_part", opts, Options{})
	want := scanAll(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap}, Options{})
	sameScan(t, "impala.default_part under "+srv.Location("wh"), got, want)
	if len(got.rows) != 5 { // INDEX.md: five rows
		t.Fatalf("%d rows, want 5", len(got.rows))
	}
}
