package manifest

import (
	"bytes"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/twmb/avro/ocf"
)

// TestReadEveryFixtureFile reads every manifest list and every manifest of
// the fixture tables and checks them against facts other writers recorded:
// the list's counts, row counts, lengths and partition summaries.
func TestReadEveryFixtureFile(t *testing.T) {
	var lists, manifests, entries int
	for _, ft := range fixtureTables(t) {
		listFiles, manifestFiles := ft.avroFiles(t)
		read := map[string]bool{}
		for _, l := range listFiles {
			lists++
			for _, mf := range ft.readList(t, l) {
				local := ft.localPath(mf.Path)
				data := readFile(t, local)
				if int64(len(data)) != mf.Length {
					t.Errorf("%s: manifest_length %d, file has %d bytes", mf.Path, mf.Length, len(data))
				}
				es := ft.readManifest(t, mf)
				checkCounts(t, mf, es)
				checkSummaries(t, ft, mf, es)
				read[local] = true
				entries += len(es)
			}
		}
		for _, m := range manifestFiles {
			manifests++
			if !read[m] {
				entries += len(readOrphanManifest(t, ft, m))
			}
		}
	}
	if lists != 52 || manifests != 64 {
		t.Errorf("read %d lists and %d manifests, the fixtures hold 52 and 64", lists, manifests)
	}
	t.Logf("%d manifest lists, %d manifests, %d entries (counting shared manifests once per list)", lists, manifests, entries)
}

// readOrphanManifest reads a manifest no fixture list names, taking what a
// list entry would say from its header.
func readOrphanManifest(t *testing.T, ft *fixtureTable, p string) []Entry {
	t.Helper()
	data := readFile(t, p)
	r, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	meta := r.Metadata()
	specID, err := strconv.Atoi(string(meta["partition-spec-id"]))
	if err != nil {
		t.Fatalf("%s: orphan manifest without a header: %v", p, err)
	}
	mf := ManifestFile{Path: p, Length: int64(len(data)), PartitionSpecID: specID, AddedSnapshotID: 1, SequenceNumber: 1}
	if string(meta["content"]) == "deletes" {
		mf.Content = ManifestContentDeletes
	}
	spec, pt := ft.spec(t, specID)
	es, err := ReadManifest(data, mf, spec, pt, ft.formatVersion)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(es) == 0 {
		t.Errorf("%s: no entries", p)
	}
	return es
}

// checkCounts compares the manifest-list entry's counts with the entries.
func checkCounts(t *testing.T, mf ManifestFile, es []Entry) {
	t.Helper()
	var files [3]int
	var rows [3]int64
	for _, e := range es {
		files[e.Status]++
		rows[e.Status] += e.DataFile.RecordCount
	}
	want := []struct {
		name      string
		list, got int64
	}{
		{"added files", int64(mf.AddedFilesCount), int64(files[StatusAdded])},
		{"existing files", int64(mf.ExistingFilesCount), int64(files[StatusExisting])},
		{"deleted files", int64(mf.DeletedFilesCount), int64(files[StatusDeleted])},
		{"added rows", mf.AddedRowsCount, rows[StatusAdded]},
		{"existing rows", mf.ExistingRowsCount, rows[StatusExisting]},
		{"deleted rows", mf.DeletedRowsCount, rows[StatusDeleted]},
	}
	for _, w := range want {
		if w.list != UnknownCount && w.list != w.got {
			t.Errorf("%s: list says %d %s, the manifest has %d", mf.Path, w.list, w.name, w.got)
		}
	}
	for _, e := range es {
		if e.DataFile.SpecID != mf.PartitionSpecID {
			t.Errorf("%s: entry spec id %d", mf.Path, e.DataFile.SpecID)
		}
		if e.Status != StatusDeleted && e.SequenceNumber < mf.MinSequenceNumber {
			t.Errorf("%s: live entry with data sequence number %d below the list's minimum %d", mf.Path, e.SequenceNumber, mf.MinSequenceNumber)
		}
		if e.SequenceNumber > mf.SequenceNumber || e.FileSequenceNumber > mf.SequenceNumber {
			t.Errorf("%s: entry sequence numbers %d/%d above the manifest's %d", mf.Path, e.SequenceNumber, e.FileSequenceNumber, mf.SequenceNumber)
		}
	}
}

// checkSummaries recomputes the list's partition summaries from the
// partition tuples read: the engines' own summaries are the reference.
func checkSummaries(t *testing.T, ft *fixtureTable, mf ManifestFile, es []Entry) {
	t.Helper()
	_, pt := ft.spec(t, mf.PartitionSpecID)
	if len(mf.Partitions) == 0 {
		return
	}
	if len(mf.Partitions) != len(pt.Fields) {
		t.Fatalf("%s: %d summaries for %d partition fields", mf.Path, len(mf.Partitions), len(pt.Fields))
	}
	for i, f := range pt.Fields {
		st := partitionStats{t: f.Type}
		for _, e := range es {
			st.update(e.DataFile.Partition[i])
		}
		got, err := st.summary()
		if err != nil {
			t.Fatal(err)
		}
		want := mf.Partitions[i]
		if got.ContainsNull != want.ContainsNull || !bytes.Equal(got.LowerBound, want.LowerBound) || !bytes.Equal(got.UpperBound, want.UpperBound) ||
			want.ContainsNaN != nil && *want.ContainsNaN != *got.ContainsNaN {
			t.Errorf("%s field %s: summary from entries %+v, the list has %+v", mf.Path, f.Name, got, want)
		}
	}
}

// TestPartitionValuesMatchPaths checks every partition tuple against the
// name=value directories engines put in data file paths, an independent
// record of the same values.
func TestPartitionValuesMatchPaths(t *testing.T) {
	checked := map[string]int{}
	for _, ft := range fixtureTables(t) {
		lists, _ := ft.avroFiles(t)
		for _, l := range lists {
			for _, mf := range ft.readList(t, l) {
				spec, pt := ft.spec(t, mf.PartitionSpecID)
				for _, e := range ft.readManifest(t, mf) {
					dirs := pathPartitions(e.DataFile.FilePath)
					for i, pf := range spec.Fields {
						dir, ok := dirs[pf.Name]
						if !ok {
							continue
						}
						got := humanPartitionValue(t, pf.Transform, pt.Fields[i].Type, e.DataFile.Partition[i])
						if got != dir {
							t.Errorf("%s: partition %s=%s in the path, %s read (%v)", e.DataFile.FilePath, pf.Name, dir, got, e.DataFile.Partition[i])
						}
						checked[ft.name]++
					}
				}
			}
		}
	}
	for _, name := range []string{"impala_iceberg_partitioned", "impala_iceberg_timestamptz_part", "impala_iceberg_v2_delete_equality_partitioned",
		"impala_iceberg_v2_equality_delete_schema_evolution", "impala_iceberg_v2_partitioned_position_deletes", "impala_test_default_part",
		"duckdb_equality_deletes/warehouse/mydb/mytable_partitioned"} {
		if checked[name] == 0 {
			t.Errorf("%s: no partition value was checked against a path", name)
		}
	}
	t.Logf("partition values checked against paths: %v", checked)
}

// pathPartitions reads the name=value directories of a file path.
func pathPartitions(p string) map[string]string {
	out := map[string]string{}
	segs := strings.Split(p, "/")
	for _, seg := range segs[:len(segs)-1] {
		if k, v, ok := strings.Cut(seg, "="); ok {
			if uk, err := url.QueryUnescape(k); err == nil {
				k = uk
			}
			if uv, err := url.QueryUnescape(v); err == nil {
				v = uv
			}
			out[k] = v
		}
	}
	return out
}

// humanPartitionValue formats a partition value as Java's
// Transform.toHumanString does for paths.
func humanPartitionValue(t *testing.T, tr iceberg.Transform, typ iceberg.Type, v any) string {
	t.Helper()
	if v == nil {
		return "null"
	}
	epoch := time.Unix(0, 0).UTC()
	switch tr.(type) {
	case iceberg.HourTransform:
		return epoch.Add(time.Duration(v.(int32)) * time.Hour).Format("2006-01-02-15")
	case iceberg.DayTransform:
		return iceberg.FormatDate(v.(int32))
	case iceberg.MonthTransform:
		return epoch.AddDate(0, int(v.(int32)), 0).Format("2006-01")
	case iceberg.YearTransform:
		return strconv.Itoa(1970 + int(v.(int32)))
	}
	switch typ.(type) {
	case iceberg.DateType:
		return iceberg.FormatDate(v.(int32))
	case iceberg.StringType:
		return v.(string)
	}
	return fmt.Sprint(v)
}

func TestLineitemSnapshots(t *testing.T) {
	ft := fixtureTableNamed(t, "duckdb_lineitem_iceberg")
	var added []Entry
	for _, e := range ft.snapshotEntries(t, ft.currentID) {
		if e.Status == StatusAdded {
			added = append(added, e)
		}
	}
	if len(added) != 1 || added[0].DataFile.RecordCount != 51793 || added[0].DataFile.Content != ContentData {
		t.Errorf("current snapshot: want one ADDED data file of 51793 records, got %+v", added)
	}
	var first []Entry
	for _, s := range ft.snapshots {
		if s.SequenceNumber == 1 {
			first = ft.snapshotEntries(t, s.ID)
		}
	}
	if len(first) != 1 || first[0].DataFile.RecordCount != 60175 || first[0].SequenceNumber != 1 {
		t.Errorf("first snapshot: want one file of 60175 records, got %+v", first)
	}
}

func TestImpalaPartitionedTuples(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_iceberg_partitioned")
	mfs := ft.readList(t, ft.snapshot(t, ft.currentID).ManifestList)
	if len(mfs) != 1 || mfs[0].SequenceNumber != 0 || mfs[0].MinSequenceNumber != 0 || mfs[0].Content != ManifestContentData || mfs[0].AddedFilesCount != 20 {
		t.Errorf("v1 manifest list: %+v", mfs)
	}
	es := ft.snapshotEntries(t, ft.currentID)
	if len(es) != 20 {
		t.Fatalf("want 20 data files, got %d", len(es))
	}
	byPartition := map[string]int{}
	for _, e := range es {
		if e.DataFile.RecordCount != 1 || e.Status != StatusAdded || e.SequenceNumber != 0 || e.FileSequenceNumber != 0 {
			t.Errorf("%s: %+v", e.DataFile.FilePath, e)
		}
		byPartition[fmt.Sprint(e.DataFile.Partition...)]++
	}
	// SHOW PARTITIONS: 438296/view 8 rows, 438297/click 6, 438298/download 6.
	want := map[string]int{"438296view": 8, "438297click": 6, "438298download": 6}
	if fmt.Sprint(byPartition) != fmt.Sprint(want) {
		t.Errorf("partitions %v, want %v", byPartition, want)
	}
}

func TestDeletionVectors(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_iceberg_v3_deletion_vectors")
	var dataFiles, puffin []Entry
	for _, e := range ft.snapshotEntries(t, ft.currentID) {
		switch {
		case e.DataFile.Content == ContentData && strings.EqualFold(e.DataFile.FileFormat, "parquet"):
			dataFiles = append(dataFiles, e)
		case e.DataFile.Content == ContentPositionDeletes && strings.EqualFold(e.DataFile.FileFormat, "puffin"):
			puffin = append(puffin, e)
		default:
			t.Errorf("unexpected entry %+v", e)
		}
	}
	if len(dataFiles) != 5 || len(puffin) != 2 {
		t.Fatalf("want 5 parquet data files and 2 puffin entries, got %d and %d", len(dataFiles), len(puffin))
	}
	sort.Slice(puffin, func(i, j int) bool { return *puffin[i].DataFile.ContentOffset < *puffin[j].DataFile.ContentOffset })
	dataPaths := map[string]bool{}
	for _, e := range dataFiles {
		dataPaths[e.DataFile.FilePath] = true
		if e.DataFile.ReferencedDataFile != "" || e.DataFile.ContentOffset != nil {
			t.Errorf("data file with delete fields: %+v", e.DataFile)
		}
	}
	for i, off := range []int64{4, 46} {
		df := puffin[i].DataFile
		if *df.ContentOffset != off || df.ContentSizeInBytes == nil || *df.ContentSizeInBytes != 42 || !dataPaths[df.ReferencedDataFile] || df.FileSizeInBytes != 824 {
			t.Errorf("puffin entry %d: offset %d size %v referenced %q size %d", i, *df.ContentOffset, df.ContentSizeInBytes, df.ReferencedDataFile, df.FileSizeInBytes)
		}
		if puffin[i].SequenceNumber != 2 || df.FirstRowID != nil {
			t.Errorf("puffin entry %d: data sequence number %d, first row id %v", i, puffin[i].SequenceNumber, df.FirstRowID)
		}
	}
	if puffin[0].DataFile.ReferencedDataFile == puffin[1].DataFile.ReferencedDataFile {
		t.Error("both deletion vectors reference one data file")
	}
	// Time travel to the first snapshot: the five rows, no deletes.
	first := ft.snapshotEntries(t, 2700858159721908397)
	if len(first) != 5 {
		t.Errorf("first snapshot has %d files, want 5", len(first))
	}
	for _, e := range first {
		if e.DataFile.Content != ContentData || e.SequenceNumber != 1 {
			t.Errorf("first snapshot: %+v", e)
		}
	}
}

func TestEqualityIDs(t *testing.T) {
	cases := map[string][]string{
		"impala_iceberg_v2_delete_pos_and_multi_eq_ids":              {"[1 2]", "[2 3]"},
		"duckdb_equality_deletes/warehouse/mydb/mytable":             {"[1 2]", "[1]", "[2]"},
		"duckdb_equality_deletes/warehouse/mydb/mytable_partitioned": {"[2 1]", "[2]"},
	}
	for name, want := range cases {
		ft := fixtureTableNamed(t, name)
		seen := map[string]bool{}
		positional := 0
		lists, _ := ft.avroFiles(t)
		for _, l := range lists {
			for _, mf := range ft.readList(t, l) {
				for _, e := range ft.readManifest(t, mf) {
					switch e.DataFile.Content {
					case ContentEqualityDeletes:
						seen[fmt.Sprint(e.DataFile.EqualityIDs)] = true
					case ContentPositionDeletes:
						positional++
					default:
						if e.DataFile.EqualityIDs != nil {
							t.Errorf("%s: data file with equality ids", e.DataFile.FilePath)
						}
					}
				}
			}
		}
		var got []string
		for k := range seen {
			got = append(got, k)
		}
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: equality ids %v, want %v", name, got, want)
		}
		if name == "impala_iceberg_v2_delete_pos_and_multi_eq_ids" && positional == 0 {
			t.Errorf("%s: the Impala position delete is missing", name)
		}
	}
}

// TestRowLineageInheritance checks inherited first row ids and data
// sequence numbers against Impala's expected _row_id and
// _last_updated_sequence_number: i=1 → (0, 1), i=2 → (1, 2), i=3 → (2, 3).
// Each append wrote one single-row file whose i is its lower bound.
func TestRowLineageInheritance(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_iceberg_v3_row_lineage")
	want := map[int32][2]int64{1: {0, 1}, 2: {1, 2}, 3: {2, 3}}
	for _, s := range ft.snapshots {
		if s.SequenceNumber > 3 {
			continue
		}
		for _, e := range ft.snapshotEntries(t, s.ID) {
			i := int32(e.DataFile.Metrics.Maps().LowerBounds[1][0])
			w, ok := want[i]
			if !ok || e.DataFile.RecordCount != 1 {
				t.Fatalf("unexpected file %+v", e.DataFile)
			}
			if e.DataFile.FirstRowID == nil || *e.DataFile.FirstRowID != w[0] || e.SequenceNumber != w[1] {
				t.Errorf("i=%d: first row id %v, data sequence number %d; want %v", i, e.DataFile.FirstRowID, e.SequenceNumber, w)
			}
		}
	}
	// The compaction (sequence 4) deletes the three files, keeping their
	// stored ids, and adds one file that keeps data sequence number 3 and
	// takes the manifest's first row id 3.
	var added, deleted int
	for _, e := range ft.snapshotEntries(t, ft.currentID) {
		switch e.Status {
		case StatusDeleted:
			deleted++
			w := want[int32(e.DataFile.Metrics.Maps().LowerBounds[1][0])]
			if *e.DataFile.FirstRowID != w[0] || e.SequenceNumber != w[1] || e.SequenceNumberInherited {
				t.Errorf("deleted entry: %+v", e)
			}
		case StatusAdded:
			added++
			if e.SequenceNumber != 3 || e.SequenceNumberInherited || e.FileSequenceNumber != 4 || !e.FileSequenceNumberInherited ||
				e.DataFile.FirstRowID == nil || *e.DataFile.FirstRowID != 3 {
				t.Errorf("compacted file: %+v", e)
			}
		}
	}
	if added != 1 || deleted != 3 {
		t.Errorf("compaction: %d added, %d deleted", added, deleted)
	}
}

func TestDefaultPartEvolution(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_test_default_part")
	values := map[string]int{}
	for _, e := range ft.snapshotEntries(t, ft.currentID) {
		switch e.DataFile.SpecID {
		case 0:
			if len(e.DataFile.Partition) != 0 {
				t.Errorf("unpartitioned file with a tuple: %+v", e.DataFile)
			}
			values["spec0"] += int(e.DataFile.RecordCount)
		case 1:
			values[fmt.Sprint(e.DataFile.Partition[0])] += int(e.DataFile.RecordCount)
		}
	}
	// Rows 1 and 2 predate the partitioning; j is 5, 10 and NULL for 3-5.
	want := map[string]int{"spec0": 2, "5": 1, "10": 1, "<nil>": 1}
	if fmt.Sprint(values) != fmt.Sprint(want) {
		t.Errorf("rows per partition %v, want %v", values, want)
	}
}

func TestPositionDeleteRows(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_iceberg_v2_partitioned_position_deletes")
	var deleteFiles int
	var deletedRows, dataRows int64
	for _, e := range ft.snapshotEntries(t, ft.currentID) {
		if e.DataFile.Content == ContentPositionDeletes {
			deleteFiles++
			deletedRows += e.DataFile.RecordCount
		} else {
			dataRows += e.DataFile.RecordCount
		}
	}
	// 20 rows, 10 deleted by 3 Hive position delete files.
	if deleteFiles != 3 || deletedRows != 10 || dataRows != 20 {
		t.Errorf("%d delete files with %d rows over %d data rows", deleteFiles, deletedRows, dataRows)
	}
}

func TestUUIDTableFiles(t *testing.T) {
	ft := fixtureTableNamed(t, "duckdb_uuid")
	es := ft.snapshotEntries(t, ft.currentID)
	if len(es) != 2 || es[0].DataFile.RecordCount != 5 || es[1].DataFile.RecordCount != 5 {
		t.Errorf("want 2 files of 5 rows: %+v", es)
	}
	for _, e := range es {
		if len(e.DataFile.Metrics.Maps().LowerBounds[1]) != 16 {
			t.Errorf("uuid lower bound %x", e.DataFile.Metrics.Maps().LowerBounds[1])
		}
	}
}

// TestHeaderlessFixtures: the Impala files round-tripped through avro-tools
// have no Iceberg header yet read fully from the caller's context.
func TestHeaderlessFixtures(t *testing.T) {
	headerless := 0
	for _, ft := range fixtureTables(t) {
		lists, manifests := ft.avroFiles(t)
		for _, p := range append(lists, manifests...) {
			r, err := ocf.NewReader(bytes.NewReader(readFile(t, p)))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.Metadata()["format-version"]; !ok {
				headerless++
			}
		}
	}
	if headerless < 30 {
		t.Errorf("only %d headerless files; the fixtures have many more", headerless)
	}
	ft := fixtureTableNamed(t, "impala_iceberg_v2_delete_equality_partitioned")
	es := ft.snapshotEntries(t, ft.currentID)
	var deletes int
	for _, e := range es {
		if e.DataFile.Content == ContentEqualityDeletes {
			deletes++
		}
	}
	if len(es) != 8 || deletes != 4 {
		t.Errorf("want 4 data and 4 equality delete files, got %d entries, %d deletes", len(es), deletes)
	}
}

func TestReadManifestRejectsWrongContext(t *testing.T) {
	ft := fixtureTableNamed(t, "impala_iceberg_partitioned")
	mf := ft.readList(t, ft.snapshot(t, ft.currentID).ManifestList)[0]
	data := readFile(t, ft.localPath(mf.Path))
	spec, pt := ft.spec(t, 0)

	wrongID := mf
	wrongID.PartitionSpecID = 7
	if _, err := ReadManifest(data, wrongID, spec, pt, 1); err == nil {
		t.Error("spec id mismatch accepted")
	}
	if _, err := ReadManifest(data, mf, iceberg.PartitionSpec{}, nil, 1); err == nil {
		t.Error("unpartitioned spec accepted for a partitioned manifest")
	}
	oneField := iceberg.PartitionSpec{Fields: spec.Fields[1:]}
	if _, err := ReadManifest(data, mf, oneField, &iceberg.StructType{Fields: pt.Fields[1:]}, 1); err == nil {
		t.Error("a spec lacking a partition field id of the file was accepted")
	}
	if _, err := ReadManifest(data, mf, spec, &iceberg.StructType{Fields: pt.Fields[:1]}, 1); err == nil {
		t.Error("partition type of the wrong arity accepted")
	}
	deletes := mf
	deletes.Content = ManifestContentDeletes
	if _, err := ReadManifest(data, deletes, spec, pt, 2); err == nil {
		t.Error("data files read as a delete manifest")
	}
	if _, err := ReadManifest(data, mf, spec, pt, 4); err == nil {
		t.Error("format version 4 accepted")
	}
	if _, err := ReadManifestList(data, 1); err == nil {
		t.Error("a manifest read as a manifest list")
	}
	list := readFile(t, ft.snapshot(t, ft.currentID).ManifestList)
	if _, err := ReadManifest(list, mf, spec, pt, 1); err == nil {
		t.Error("a manifest list read as a manifest")
	}
	for _, bad := range [][]byte{nil, []byte("Obj\x01"), data[:len(data)/2]} {
		if _, err := ReadManifest(bad, mf, spec, pt, 1); err == nil {
			t.Errorf("%d garbage bytes accepted", len(bad))
		}
	}
}
