package interop

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/internal/fixtures"
)

// Refs floe's ManageSnapshots writes are read by iceberg-go: the
// branches and tags with their retention, and main moved back to a
// snapshot years old. iceberg-go (as Java and iceberg-rust) refuses
// metadata whose snapshot log runs backwards in time by more than a
// minute, which a rollback logged at its snapshot's first commit time
// did; a table written seconds ago never shows it, so this uses Hive's
// table of 2022.
func TestIcebergGoReadsRefsFloeManaged(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fx.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	base, err := metadata.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	first, second := base.Snapshots[0].SnapshotID, base.Snapshots[1].SnapshotID
	for _, c := range []struct {
		name string
		ms   *action.ManageSnapshots
	}{
		{"rollback", new(action.ManageSnapshots).RollbackTo(first)},
		{"rollback to time", new(action.ManageSnapshots).RollbackToTime(base.Snapshots[1].TimestampMs + 1)},
		{"set current and back", new(action.ManageSnapshots).SetCurrentSnapshot(first).SetCurrentSnapshot(second)},
		{"refs with retention", new(action.ManageSnapshots).
			CreateBranch("audit", second).SetMinSnapshotsToKeep("audit", 3).SetMaxSnapshotAgeMs("audit", 86_400_000).
			CreateTag("v1", first).SetMaxRefAgeMs("v1", 3_600_000).
			ReplaceBranchWith("main", "v1")},
	} {
		t.Run(c.name, func(t *testing.T) {
			updates, err := c.ms.Build(base)
			if err != nil {
				t.Fatal(err)
			}
			ch := metadata.Edit(base)
			if err := ch.Apply(updates...); err != nil {
				t.Fatal(err)
			}
			md := ch.Metadata()
			md.LastUpdatedMs = time.Now().UnixMilli() // as a commit stamps it
			var buf bytes.Buffer
			if err := md.Write(&buf); err != nil {
				t.Fatal(err)
			}
			goMD, err := icebergtable.ParseMetadataBytes(buf.Bytes())
			if err != nil {
				t.Fatalf("iceberg-go refuses the metadata floe wrote: %v\nsnapshot log %v", err, md.SnapshotLog)
			}
			if got := goMD.CurrentSnapshot(); got == nil || got.SnapshotID != *md.CurrentSnapshotID {
				t.Fatalf("iceberg-go's current snapshot %v, floe's %d", got, *md.CurrentSnapshotID)
			}
			goRefs := maps.Collect(goMD.Refs())
			if !slices.Equal(slices.Sorted(maps.Keys(goRefs)), slices.Sorted(maps.Keys(md.Refs))) {
				t.Fatalf("iceberg-go refs %v, floe's %v", goRefs, md.Refs)
			}
			for name, r := range md.Refs {
				g := goRefs[name]
				if g.SnapshotID != r.SnapshotID || string(g.SnapshotRefType) != r.Type ||
					!samePtr(g.MinSnapshotsToKeep, r.MinSnapshotsToKeep) || !samePtr(g.MaxSnapshotAgeMs, r.MaxSnapshotAgeMs) || !samePtr(g.MaxRefAgeMs, r.MaxRefAgeMs) {
					t.Errorf("ref %q: iceberg-go %+v, floe %+v", name, g, r)
				}
			}
		})
	}
}

func samePtr[T comparable](a, b *T) bool { return a == b || a != nil && b != nil && *a == *b }
