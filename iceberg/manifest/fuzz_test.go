package manifest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/avronull"
)

// Fuzzing feeds mutated fixture files to the readers: they must return
// errors, never panic. A panic inside the Avro library is recovered at the
// API boundary and reported as errPanic, which fails the fuzz target so it
// gets seen and fixed (or reported upstream).

// withoutPlanCache makes each execution compile its plans, so coverage
// depends on the input alone.
func withoutPlanCache(f *testing.F) {
	plans.Lock()
	plans.disabled, plans.m = true, nil
	plans.Unlock()
	f.Cleanup(func() {
		plans.Lock()
		plans.disabled = false
		plans.Unlock()
	})
}

func FuzzReadManifestList(f *testing.F) {
	withoutPlanCache(f)
	for _, ft := range fixtureTables(f) {
		lists, _ := ft.avroFiles(f)
		for _, l := range lists {
			f.Add(readFile(f, l), uint8(ft.formatVersion))
		}
	}
	for _, c := range unionCases {
		_, l, _, _ := unionFiles(f, c)
		f.Add(wrapAll(f, l, avronull.Options{NullLast: c.version%2 == 0}), uint8(c.version))
	}
	f.Fuzz(func(t *testing.T, data []byte, version uint8) {
		mfs, err := ReadManifestList(data, int(version%3)+1)
		if errors.Is(err, errPanic) {
			t.Fatal(err)
		}
		if err != nil {
			return
		}
		// Whatever reads must write back (as v1, which every entry fits)
		// and read back the same.
		want := onlyData(mfs)
		var buf bytes.Buffer
		if _, _, err := WriteManifestList(&buf, ManifestListWriteOptions{FormatVersion: 1, SnapshotID: 1}, want); err != nil {
			t.Fatalf("rewriting: %v", err)
		}
		got, err := ReadManifestList(buf.Bytes(), 1)
		if err != nil {
			t.Fatalf("reading the rewrite: %v", err)
		}
		for i := range want {
			m := want[i]
			m.SequenceNumber, m.MinSequenceNumber, m.FirstRowID = 0, 0, nil
			if m.AddedSnapshotID == 0 {
				m.AddedSnapshotID = 1
			}
			if !reflect.DeepEqual(got[i], m) {
				t.Fatalf("rewrite differs:\n%+v\n%+v", got[i], m)
			}
		}
	})
}

func onlyData(mfs []ManifestFile) []ManifestFile {
	var out []ManifestFile
	for _, m := range mfs {
		if m.Content == ManifestContentData {
			out = append(out, m)
		}
	}
	return out
}

// manifestContext is what a reader needs besides the bytes.
type manifestContext struct {
	mf      ManifestFile
	spec    iceberg.PartitionSpec
	pt      *iceberg.StructType
	version int
}

func FuzzReadManifest(f *testing.F) {
	withoutPlanCache(f)
	var contexts []manifestContext
	seen := map[string]bool{}
	for _, ft := range fixtureTables(f) {
		lists, _ := ft.avroFiles(f)
		for _, l := range lists {
			for _, mf := range ft.readList(f, l) {
				if seen[mf.Path] {
					continue
				}
				seen[mf.Path] = true
				spec, pt := ft.spec(f, mf.PartitionSpecID)
				f.Add(readFile(f, ft.localPath(mf.Path)), uint16(len(contexts)))
				contexts = append(contexts, manifestContext{mf, spec, pt, ft.formatVersion})
			}
		}
	}
	// Manifests with every value nullable, records included (union_test.go).
	for _, c := range unionCases {
		m, l, spec, pt := unionFiles(f, c)
		mfs, err := ReadManifestList(l, c.version)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(wrapAll(f, m, avronull.Options{NullLast: c.version%2 == 1}), uint16(len(contexts)))
		contexts = append(contexts, manifestContext{mfs[0], spec, pt, c.version})
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint16) {
		c := contexts[int(which)%len(contexts)]
		entries, err := ReadManifest(data, c.mf, c.spec, c.pt, c.version)
		if errors.Is(err, errPanic) {
			t.Fatal(err)
		}
		if err != nil {
			return
		}
		// Metrics come out canonical: the same bytes as made from maps.
		for i := range entries {
			m := entries[i].DataFile.Metrics
			if again := MetricsOf(m.Maps()); !reflect.DeepEqual(again, m) {
				t.Fatalf("entry %d: metrics %x are not canonical (%x)", i, m.enc, again.enc)
			}
		}
		// Whatever reads must write back and read back the same.
		var buf bytes.Buffer
		opts := ManifestWriteOptions{FormatVersion: c.version, Spec: c.spec, PartitionType: c.pt, Schema: iceberg.NewSchema(0, nil), Content: c.mf.Content, SnapshotID: c.mf.AddedSnapshotID}
		if _, err := WriteManifest(&buf, opts, entries); err != nil {
			return // e.g. an EXISTING entry with an unknown data sequence number
		}
		back, err := ReadManifest(buf.Bytes(), c.mf, c.spec, c.pt, c.version)
		if err != nil {
			t.Fatalf("a rewritten manifest does not read: %v", err)
		}
		if len(back) != len(entries) {
			t.Fatalf("rewrite has %d entries, not %d", len(back), len(entries))
		}
		for i := range back {
			if !reflect.DeepEqual(back[i].DataFile.Metrics, entries[i].DataFile.Metrics) {
				t.Fatalf("entry %d: metrics %x rewritten as %x", i, entries[i].DataFile.Metrics.enc, back[i].DataFile.Metrics.enc)
			}
		}
	})
}
