package committest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/writer/ops"
)

// A copy's writes land inside the copy even when write.data.path sends
// data files elsewhere: a data path under the recorded location is mapped
// into the copy like every other path, and one outside it (the original's
// own side directory) is refused, nothing written there or committed.
func TestCopyWritesDataOnlyInsideItself(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		dataDir func(base, orig string) string
		refused bool
	}{
		{"inside the location", func(_, orig string) string { return filepath.Join(orig, "custom") }, false},
		{"outside the location", func(base, _ string) string { return filepath.Join(base, "shared-data") }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			orig, cp := filepath.Join(base, "prod"), filepath.Join(base, "test")
			dataDir := c.dataDir(base, orig)
			tbl, err := table.Create(ctx, nil, orig, testtable.Schema(), nil, nil, map[string]string{"write.data.path": dataDir}, 2)
			if err != nil {
				t.Fatal(err)
			}
			schema := tbl.Metadata.CurrentSchema()
			if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, rowsIn(1, 0, 10)), table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			copyDir(t, orig, cp)
			before := rowstest.FilesUnder(t, dataDir)
			copied, err := table.Open(ctx, cp, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ops.Append(ctx, copied, rowstest.Reader(t, schema, rowsIn(2, 100, 10)), table.CommitOptions{})
			switch {
			case c.refused && !errors.Is(err, errkind.InvalidArgument):
				t.Fatalf("append to the copy: %v, want a refusal", err)
			case !c.refused && err != nil:
				t.Fatal(err)
			}
			if after := rowstest.FilesUnder(t, dataDir); len(after) != len(before) {
				t.Errorf("the copy's append wrote into %s: %v", dataDir, after)
			}
			want := 20
			if c.refused {
				want = 10
			}
			if got := scanIDs(t, cp, nil); len(got) != want {
				t.Errorf("the copy reads %d rows, want %d", len(got), want)
			}
			if !c.refused {
				if _, err := os.Stat(filepath.Join(cp, "custom")); err != nil {
					t.Errorf("the copy's data directory: %v", err)
				}
			}
		})
	}
}
