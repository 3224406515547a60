package table

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// Every commit this package's tests make is replayed as a REST catalog
// would receive it: its updates and requirements written as JSON, read
// back, checked against the base and applied to it must give exactly the
// metadata the commit built. So no commit path changes metadata outside
// its updates, and every update floe makes survives the wire.
var replay struct {
	sync.Mutex
	commits  int
	failures []string
	// kinds counts the updates replayed by action name.
	kinds map[string]int
}

// everyUpdateKind is every metadata update floe's commits make (a new
// table's assign-uuid is written by Create, not committed; floe never
// moves a table's location). A full run of this package's tests must
// replay each, so every action a transaction can take is covered.
var everyUpdateKind = []string{
	"upgrade-format-version", "add-schema", "set-current-schema", "add-spec", "set-default-spec",
	"add-sort-order", "set-default-sort-order", "add-snapshot", "set-snapshot-ref", "remove-snapshots",
	"remove-snapshot-ref", "set-properties", "remove-properties",
}

func TestMain(m *testing.M) {
	testHookChanges = func(base *Table, changes *metadata.Changes) {
		err := replayChanges(base.Metadata, changes)
		replay.Lock()
		defer replay.Unlock()
		replay.commits++
		if replay.kinds == nil {
			replay.kinds = map[string]int{}
		}
		for _, u := range changes.Updates() {
			replay.kinds[u.Action()]++
		}
		if err != nil {
			replay.failures = append(replay.failures, err.Error())
		}
	}
	code := m.Run()
	if code == 0 && len(replay.failures) > 0 {
		fmt.Fprintf(os.Stderr, "%d of %d commits did not replay from their updates; the first: %s\n", len(replay.failures), replay.commits, replay.failures[0])
		code = 1
	}
	// Only a run of every test must have made every kind.
	if run := flag.Lookup("test.run"); code == 0 && run != nil && run.Value.String() == "" {
		for _, kind := range everyUpdateKind {
			if replay.kinds[kind] == 0 {
				fmt.Fprintf(os.Stderr, "no commit of this package's tests made a %s update, so the replay did not cover it\n", kind)
				code = 1
			}
		}
	}
	os.Exit(code)
}

func replayChanges(base *metadata.Metadata, changes *metadata.Changes) error {
	rawUpdates, err := json.Marshal(changes.Updates())
	if err != nil {
		return fmt.Errorf("write updates: %w", err)
	}
	rawReqs, err := json.Marshal(changes.Requirements())
	if err != nil {
		return fmt.Errorf("write requirements: %w", err)
	}
	updates, err := metadata.ParseUpdates(rawUpdates)
	if err != nil {
		return fmt.Errorf("read back %s: %w", rawUpdates, err)
	}
	reqs, err := metadata.ParseRequirements(rawReqs)
	if err != nil {
		return fmt.Errorf("read back %s: %w", rawReqs, err)
	}
	got, err := metadata.Apply(base, reqs, updates)
	if err != nil {
		return fmt.Errorf("apply %s after %s: %w", rawUpdates, rawReqs, err)
	}
	if want := changes.Metadata(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("updates %s give metadata that differs from the commit's", rawUpdates)
	}
	return nil
}

// The replay saw this package's commits, and catches a commit that
// changes metadata outside its updates.
func TestCommitsReplayFromTheirUpdates(t *testing.T) {
	tbl := createTable(t, 3, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	replay.Lock()
	before := replay.commits
	replay.Unlock()
	if _, err := tbl.Append(t.Context(), files[:1], CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	replay.Lock()
	seen := replay.commits - before
	replay.Unlock()
	if seen != 1 {
		t.Fatalf("an append reached the replay %d times", seen)
	}
	sneaky := metadata.Edit(tbl.Metadata)
	sneaky.Metadata().Properties["changed"] = "outside any update"
	if err := replayChanges(tbl.Metadata, sneaky); err == nil {
		t.Error("a change outside the updates replayed")
	}
}
