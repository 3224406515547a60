package table

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/internal/testtable"
)

// On S3 the listing is recursive over prefixes and paginated by the
// store, a file named s3a:// in metadata is the s3:// object listed, and
// objects are timestamped by the store (so the age threshold is forced
// down to let seconds-old leftovers count).
func TestS3RemoveOrphanFiles(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t)
	st := newS3Table(t, srv, "wh", "db", "orphans")
	tbl, err := Create(ctx, st.files, st.location, testtable.Schema(), &byInt, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := st.uploadFiles(t, "a", byInt, rowsIn(1, 0, 40, 1, 2), 10)
	b := st.uploadFiles(t, "b", byInt, rowsIn(2, 100, 30, 3), 10)
	if _, err := tbl.Append(ctx, a, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// b[0] is committed as s3a://, the listing names it s3://.
	respelled := b[0]
	respelled.FilePath = "s3a" + strings.TrimPrefix(b[0].FilePath, "s3")
	if _, err := tbl.Append(ctx, []manifest.DataFile{respelled}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	leftover := fileio.JoinPath(st.location, "data", "killed", "x=9", "f.parquet")
	if err := st.files.WriteFile(ctx, leftover, []byte("never committed")); err != nil {
		t.Fatal(err)
	}
	// Hidden names stay, at any depth of the one-listing tree.
	for _, rel := range []string{"data/_temporary/0/part.parquet", "data/killed/.f.parquet.crc", "_SUCCESS"} {
		if err := st.files.WriteFile(ctx, fileio.JoinPath(st.location, rel), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(10 * time.Millisecond)
	want := append([]string{leftover}, pathsOf(b[1:])...)
	slices.Sort(want)

	opts := OrphanOptions{OlderThan: time.Nanosecond, Force: true, DryRun: true}
	dry, err := st.open(t).RemoveOrphanFiles(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Orphans, want) || dry.Deleted != 0 {
		t.Fatalf("dry run %+v, want %v", dry, want)
	}
	opts.DryRun = false
	res, err := st.open(t).RemoveOrphanFiles(ctx, opts)
	if err != nil || !slices.Equal(res.Orphans, want) || res.Deleted != len(want) {
		t.Fatalf("%+v, %v; want %v", res, err, want)
	}
	for _, p := range want {
		if ok, err := st.files.Exists(ctx, p); err != nil || ok {
			t.Fatalf("%s still there (%v)", p, err)
		}
	}
	fresh := st.open(t)
	for _, p := range livePaths(t, fresh) {
		if ok, err := st.files.Exists(ctx, p); err != nil || !ok {
			t.Fatalf("live %s gone (%v)", p, err)
		}
	}
	if got := len(livePaths(t, fresh)); got != len(a)+1 {
		t.Fatalf("%d live files, want %d", got, len(a)+1)
	}
}
