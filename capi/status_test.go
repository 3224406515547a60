package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

func TestPanicBecomesInternalStatus(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	entry := func() (rc cStatus) {
		defer recoverStatus("floe_example", &rc)
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic
		return 0
	}
	if rc := entry(); status(rc) != statusInternal {
		t.Fatalf("status %d, want FLOE_INTERNAL", rc)
	}
	msg := lastError()
	if !strings.HasPrefix(msg, "floe_example: internal error (recovered panic: assignment to entry in nil map)") {
		t.Fatalf("last error %q", msg)
	}
	setLastError("")
	if lastError() != "" {
		t.Fatal("error not cleared")
	}
}

func TestLastErrorGrowsAndIsPerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	long := strings.Repeat("x", 5000)
	setLastError("short")
	setLastError(long)
	if lastError() != long {
		t.Fatal("a long message was truncated")
	}
	setLastError("short again")
	if lastError() != "short again" {
		t.Fatalf("got %q", lastError())
	}
	done := make(chan string)
	go func() {
		// Another thread (ours is locked to this test); exiting locked ends
		// that thread, whose destructor frees its message.
		runtime.LockOSThread()
		done <- lastError()
	}()
	if other := <-done; other != "" {
		t.Fatalf("another thread sees %q", other)
	}
}

// scanOpenStatus is what floe_scan_open answers for scan_json on tbl: the
// same steps and fallback as capiScanOpen, without the C handles.
func scanOpenStatus(t *testing.T, tbl *table.Table, scanJSON string) (status, error) {
	t.Helper()
	opts, err := parseScanOptions([]byte(scanJSON))
	if err == nil {
		err = checkScanTarget(opts)
	}
	if err != nil {
		return classify(err, statusInvalidArgument), err
	}
	if _, err := scan.New(context.Background(), tbl, opts); err != nil {
		return classify(err, statusFormat), err
	}
	return statusOK, nil
}

// Each kind becomes its documented status through real failing calls; the
// kinds are given where the errors are made, not read from messages.
func TestKindsBecomeStatuses(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("impala_iceberg_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	for scanJSON, want := range map[string]status{
		`{"columns": ["nope"]}`:             statusInvalidArgument, // unknown column
		`{"filter": "nope = 1"}`:            statusInvalidArgument, // filter on an unknown column
		`{"filter": "id >"}`:                statusInvalidArgument, // filter syntax
		`{"filter": "action like 'a%b'"}`:   statusInvalidArgument, // an unsupported filter is still the caller's filter
		`{"snapshot_id": 42}`:               statusNotFound,
		`{"ref": "nope"}`:                   statusNotFound,
		`{"as_of_timestamp": 1}`:            statusNotFound,
		`{"ref": "main", "snapshot_id": 1}`: statusInvalidArgument,
		`{"limit": -1}`:                     statusInvalidArgument,
	} {
		if got, err := scanOpenStatus(t, tbl, scanJSON); got != want {
			t.Errorf("scan %s: status %d (%v), want %d", scanJSON, got, err, want)
		}
	}

	// A missing table.
	_, err = table.Open(ctx, filepath.Join(t.TempDir(), "no_such_table"), table.Options{})
	if got := classify(err, statusFormat); got != statusNotFound {
		t.Errorf("missing table: status %d (%v)", got, err)
	}

	// Unsupported: a metadata format version from the future, a codec.
	data, err := os.ReadFile(fx.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	future := regexp.MustCompile(`"format-version" : \d`).ReplaceAllString(string(data), `"format-version" : 9`)
	if future == string(data) {
		t.Fatalf("fixture metadata has no format-version to rewrite:\n%.300s", data)
	}
	dir := filepath.Join(t.TempDir(), "future", "metadata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	futurePath := filepath.Join(dir, "v1.metadata.json")
	if err := os.WriteFile(futurePath, []byte(future), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = table.Open(ctx, futurePath, table.Options{}); classify(err, statusFormat) != statusUnsupported {
		t.Errorf("format-version 9: status %d (%v)", classify(err, statusFormat), err)
	}
	// Corrupt metadata is FORMAT by its kind, whatever the fallback.
	if err := os.WriteFile(futurePath, []byte(`{"format-version": 2, "table-uuid": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = table.Open(ctx, futurePath, table.Options{}); classify(err, statusInvalidArgument) != statusFormat {
		t.Errorf("truncated metadata: status %d (%v)", classify(err, statusInvalidArgument), err)
	}
	schema := tbl.Metadata.CurrentSchema()
	if _, err := writer.OptionsFromProperties(map[string]string{writer.PropCodec: "lzo"}, schema); classify(err, statusInvalidArgument) != statusUnsupported {
		t.Errorf("codec lzo: status %d (%v)", classify(err, statusInvalidArgument), err)
	}

	// Conflicts: a table that exists, a commit removing a file that is not live.
	where := filepath.Join(t.TempDir(), "t")
	files, err := table.Options{}.FileIO(where)
	if err != nil {
		t.Fatal(err)
	}
	created, err := table.Create(ctx, files, where, schema, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Create(ctx, files, where, schema, nil, nil, nil, 2); commitFailureStatus(err) != statusConflict {
		t.Errorf("create over a table: status %d (%v)", commitFailureStatus(err), err)
	}
	if _, err := created.Commit(ctx, nil, []string{filepath.Join(where, "data", "gone.parquet")}, table.CommitOptions{}); commitFailureStatus(err) != statusConflict {
		t.Errorf("removing a file that is not live: status %d (%v)", commitFailureStatus(err), err)
	}
}

// The wording of a message decides nothing: "not supported" without the
// kind is not FLOE_UNSUPPORTED, and the kind decides whatever the words.
func TestMessagesDoNotDecideStatus(t *testing.T) {
	for _, fallback := range []status{statusFormat, statusInvalidArgument} {
		for _, text := range []string{"codec X is not supported", "unsupported encoding", "not implemented yet"} {
			if got := classify(errors.New(text), fallback); got != fallback {
				t.Errorf("%q without a kind: status %d, want the fallback %d", text, got, fallback)
			}
		}
	}
	if got := classify(errkind.Errorf(errkind.Unsupported, "variant columns cannot be filtered"), statusFormat); got != statusUnsupported {
		t.Errorf("Unsupported without the words: status %d", got)
	}
}
