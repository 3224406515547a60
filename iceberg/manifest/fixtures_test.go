package manifest

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// The fixture tables of testdata/fixtures, read with a deliberately small
// table-metadata reader (the metadata package is not this package's to
// use): just the format version, schemas, partition specs and snapshots.

const fixturesDir = "../../testdata/fixtures"

type fixtureTable struct {
	name          string // table directory relative to fixturesDir
	metadataDir   string
	formatVersion int
	schema        *iceberg.Schema // current schema
	specs         map[int]iceberg.PartitionSpec
	snapshots     []fixtureSnapshot
	currentID     int64
}

type fixtureSnapshot struct {
	ID             int64
	SequenceNumber int64
	ManifestList   string // local path
}

// fixtureTables lists every table of the fixtures with its current
// metadata file (tables.json names them; duckdb_equality_deletes holds two).
func fixtureTables(t testing.TB) []*fixtureTable {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixturesDir, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Name            string `json:"name"`
		CurrentMetadata string `json:"current_metadata"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	var out []*fixtureTable
	for _, e := range entries {
		for _, rel := range strings.Split(e.CurrentMetadata, " + ") {
			out = append(out, loadFixtureTable(t, filepath.Join(fixturesDir, e.Name, rel)))
		}
	}
	if len(out) != 16 {
		t.Fatalf("expected 16 fixture tables, found %d", len(out))
	}
	return out
}

func fixtureTableNamed(t testing.TB, name string) *fixtureTable {
	t.Helper()
	for _, ft := range fixtureTables(t) {
		if ft.name == name {
			return ft
		}
	}
	t.Fatalf("no fixture table %s", name)
	return nil
}

func loadFixtureTable(t testing.TB, metadataPath string) *fixtureTable {
	t.Helper()
	raw, err := os.ReadFile(metadataPath)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		FormatVersion   int               `json:"format-version"`
		Schema          json.RawMessage   `json:"schema"`
		Schemas         []json.RawMessage `json:"schemas"`
		CurrentSchemaID *int              `json:"current-schema-id"`
		PartitionSpec   json.RawMessage   `json:"partition-spec"`
		PartitionSpecs  []json.RawMessage `json:"partition-specs"`
		CurrentSnapshot *int64            `json:"current-snapshot-id"`
		Snapshots       []struct {
			ID             int64  `json:"snapshot-id"`
			SequenceNumber int64  `json:"sequence-number"`
			ManifestList   string `json:"manifest-list"`
		} `json:"snapshots"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&md); err != nil {
		t.Fatalf("%s: %v", metadataPath, err)
	}
	ft := &fixtureTable{
		name:          strings.TrimPrefix(filepath.Dir(filepath.Dir(metadataPath)), fixturesDir+"/"),
		metadataDir:   filepath.Dir(metadataPath),
		formatVersion: md.FormatVersion,
		specs:         map[int]iceberg.PartitionSpec{},
	}
	for _, rs := range md.Schemas {
		var s iceberg.Schema
		if err := json.Unmarshal(rs, &s); err != nil {
			t.Fatalf("%s: %v", metadataPath, err)
		}
		if md.CurrentSchemaID != nil && s.ID == *md.CurrentSchemaID {
			ft.schema = &s
		}
	}
	if ft.schema == nil {
		var s iceberg.Schema
		if err := json.Unmarshal(md.Schema, &s); err != nil {
			t.Fatalf("%s: no current schema: %v", metadataPath, err)
		}
		ft.schema = &s
	}
	for _, rs := range md.PartitionSpecs {
		var spec iceberg.PartitionSpec
		if err := json.Unmarshal(rs, &spec); err != nil {
			t.Fatalf("%s: %v", metadataPath, err)
		}
		ft.specs[spec.ID] = spec
	}
	if len(ft.specs) == 0 {
		fields, err := iceberg.ParsePartitionFields(md.PartitionSpec)
		if err != nil {
			t.Fatalf("%s: %v", metadataPath, err)
		}
		ft.specs[0] = iceberg.PartitionSpec{ID: 0, Fields: fields}
	}
	for _, s := range md.Snapshots {
		ft.snapshots = append(ft.snapshots, fixtureSnapshot{
			ID: s.ID, SequenceNumber: s.SequenceNumber,
			ManifestList: filepath.Join(ft.metadataDir, path.Base(s.ManifestList)),
		})
	}
	if md.CurrentSnapshot != nil {
		ft.currentID = *md.CurrentSnapshot
	}
	return ft
}

// spec returns a partition spec and its partition type under the current
// schema.
func (ft *fixtureTable) spec(t testing.TB, id int) (iceberg.PartitionSpec, *iceberg.StructType) {
	t.Helper()
	spec, ok := ft.specs[id]
	if !ok {
		t.Fatalf("%s: no partition spec %d", ft.name, id)
	}
	pt, err := spec.PartitionType(ft.schema)
	if err != nil {
		t.Fatalf("%s: partition type of spec %d: %v", ft.name, id, err)
	}
	return spec, pt
}

// localPath maps a metadata path written by any engine to the fixture copy:
// every manifest and list sits in the table's metadata directory.
func (ft *fixtureTable) localPath(p string) string {
	return filepath.Join(ft.metadataDir, path.Base(p))
}

func (ft *fixtureTable) snapshot(t testing.TB, id int64) fixtureSnapshot {
	t.Helper()
	for _, s := range ft.snapshots {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("%s: no snapshot %d", ft.name, id)
	return fixtureSnapshot{}
}

// avroFiles lists the table's manifest lists and manifests.
func (ft *fixtureTable) avroFiles(t testing.TB) (lists, manifests []string) {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(ft.metadataDir, "*.avro"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(all)
	for _, p := range all {
		if strings.HasPrefix(filepath.Base(p), "snap-") {
			lists = append(lists, p)
		} else {
			manifests = append(manifests, p)
		}
	}
	return lists, manifests
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readList reads a manifest list of the table.
func (ft *fixtureTable) readList(t testing.TB, p string) []ManifestFile {
	t.Helper()
	mfs, err := ReadManifestList(readFile(t, p), ft.formatVersion)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return mfs
}

// readManifest reads a manifest a list entry names.
func (ft *fixtureTable) readManifest(t testing.TB, mf ManifestFile) []Entry {
	t.Helper()
	spec, pt := ft.spec(t, mf.PartitionSpecID)
	entries, err := ReadManifest(readFile(t, ft.localPath(mf.Path)), mf, spec, pt, ft.formatVersion)
	if err != nil {
		t.Fatalf("%s: %v", mf.Path, err)
	}
	return entries
}

// snapshotEntries reads every manifest of a snapshot.
func (ft *fixtureTable) snapshotEntries(t testing.TB, snapshotID int64) []Entry {
	t.Helper()
	var out []Entry
	for _, mf := range ft.readList(t, ft.snapshot(t, snapshotID).ManifestList) {
		out = append(out, ft.readManifest(t, mf)...)
	}
	return out
}
