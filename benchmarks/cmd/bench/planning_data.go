package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// The planning table: one snapshot of many data-file entries in many
// manifests, written with floe's manifest and metadata writers. Only the
// metadata exists: planning reads manifests, never data files, so a data
// file that is opened is a failure the Count measurement would show.
//
// Manifest m holds the files of one day (2020-01-01 + m days) under the
// spec day(event_date), so the partition summaries of a date range rule
// out every other manifest. Within a day, file f covers categories
// cat(f%20) and cat(f%20+1), its slice of the day's timestamps and a run
// of ids, so a category predicate prunes by column metrics.

// Field ids of the planning schema.
const (
	planIDID = iota + 1
	planIDDate
	planIDTs
	planIDCategory
	planIDAmount
	planIDQuantity
	planIDPrice
	planIDNote
)

const (
	planCategories = 20
	// planFirstDay is 2020-01-01 in days since the epoch.
	planFirstDay = 18262
	// planFileBytes is each file's recorded size: below the default split
	// size, so a scan makes one task per file.
	planFileBytes  = 48 << 20
	planSnapshotID = 4_242_424_242
)

var planDecimal = iceberg.DecimalType{Precision: 12, Scale: 2}

func planningSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: planIDID, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: planIDDate, Name: "event_date", Type: iceberg.DateType{}, Required: true},
		{ID: planIDTs, Name: "event_ts", Type: iceberg.TimestampType{}, Required: true},
		{ID: planIDCategory, Name: "category", Type: iceberg.StringType{}, Required: true},
		{ID: planIDAmount, Name: "amount", Type: planDecimal},
		{ID: planIDQuantity, Name: "quantity", Type: iceberg.IntType{}},
		{ID: planIDPrice, Name: "price", Type: iceberg.DoubleType{}},
		{ID: planIDNote, Name: "note", Type: iceberg.StringType{}},
	}, planIDID)
}

func planningSpec() iceberg.PartitionSpec {
	return iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{
		{SourceID: planIDDate, FieldID: iceberg.PartitionFieldIDStart, Name: "event_date_day", Transform: iceberg.DayTransform{}},
	}}
}

// planningParams is the table's shape; written next to it, so a table of
// another shape in the same directory is not taken for this one.
type planningParams struct {
	Manifests        int `json:"manifests"`
	FilesPerManifest int `json:"files_per_manifest"`
	// Version changes when the generator changes what it writes.
	Version int `json:"version"`
}

const planningGeneratorVersion = 1

// planningTable is a generated table and what planning it must find.
type planningTable struct {
	Dir          string         `json:"dir"`
	MetadataPath string         `json:"metadata_path"`
	Params       planningParams `json:"params"`
	Files        int            `json:"files"`
	Records      int64          `json:"records"`
	ManifestMiB  float64        `json:"manifest_mib"`
}

func category(k int) string { return fmt.Sprintf("cat%02d", min(k, planCategories-1)) }

// planFileRecords is file g's record count: varied, so a count that adds
// the wrong files or one file twice is off.
func planFileRecords(g int) int64 { return 5_000 + int64(g%997) }

// generatePlanning writes the table under dir/f<files>-m<manifests>, or
// reuses it when a complete one of the same shape is there.
func generatePlanning(dir string, p planningParams, logf func(string, ...any)) (*planningTable, error) {
	p.Version = planningGeneratorVersion
	loc, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("f%d-m%d", p.Manifests*p.FilesPerManifest, p.Manifests)))
	if err != nil {
		return nil, err
	}
	// The marker is written last: its presence means the table is whole.
	marker := filepath.Join(loc, "planning-table.json")
	if data, err := os.ReadFile(marker); err == nil {
		var tbl planningTable
		if json.Unmarshal(data, &tbl) == nil && tbl.Params == p {
			if _, err := os.Stat(tbl.MetadataPath); err == nil {
				logf("reusing the planning table at %s", loc)
				return &tbl, nil
			}
		}
	}
	if err := os.RemoveAll(loc); err != nil {
		return nil, err
	}
	metaDir := filepath.Join(loc, "metadata")
	if err := os.MkdirAll(metaDir, 0o755); err != nil {
		return nil, err
	}
	logf("writing a planning table of %d files in %d manifests to %s ...", p.Manifests*p.FilesPerManifest, p.Manifests, loc)
	start := time.Now()

	schema, spec := planningSchema(), planningSpec()
	partType, err := spec.PartitionType(schema)
	if err != nil {
		return nil, err
	}
	manifests := make([]manifest.ManifestFile, p.Manifests)
	errs := make([]error, p.Manifests)
	var wg sync.WaitGroup
	// Two writers: the machine's cores, and the manifests are independent.
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			var buf bytes.Buffer
			for m := range next {
				manifests[m], errs[m] = writePlanningManifest(&buf, loc, m, p.FilesPerManifest, schema, spec, partType)
			}
		})
	}
	for m := range p.Manifests {
		next <- m
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	tbl := &planningTable{Dir: loc, Params: p, Files: p.Manifests * p.FilesPerManifest}
	var manifestBytes int64
	for i := range manifests {
		tbl.Records += manifests[i].AddedRowsCount
		manifestBytes += manifests[i].Length
	}
	tbl.ManifestMiB = float64(manifestBytes) / (1 << 20)

	var buf bytes.Buffer
	listPath := filepath.Join(metaDir, fmt.Sprintf("snap-%d-1-planning.avro", planSnapshotID))
	if _, _, err := manifest.WriteManifestList(&buf, manifest.ManifestListWriteOptions{
		FormatVersion: 2, SnapshotID: planSnapshotID, SequenceNumber: 1,
	}, manifests); err != nil {
		return nil, fmt.Errorf("writing the manifest list: %w", err)
	}
	if err := os.WriteFile(listPath, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if tbl.MetadataPath, err = writePlanningMetadata(loc, listPath, schema, spec, tbl); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(tbl, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(marker, data, 0o644); err != nil {
		return nil, err
	}
	logf("planning table written in %.1fs: %.0f MiB of manifests", time.Since(start).Seconds(), tbl.ManifestMiB)
	return tbl, nil
}

// writePlanningManifest writes manifest m: the files of day m.
func writePlanningManifest(buf *bytes.Buffer, loc string, m, files int, schema *iceberg.Schema, spec iceberg.PartitionSpec, partType *iceberg.StructType) (manifest.ManifestFile, error) {
	day := int32(planFirstDay + m)
	dayDir := "event_date_day=" + iceberg.FormatDate(day)
	entries := make([]manifest.Entry, files)
	for f := range files {
		g := m*files + f
		df, err := planningDataFile(loc, dayDir, day, f, g, files)
		if err != nil {
			return manifest.ManifestFile{}, err
		}
		entries[f] = manifest.Entry{Status: manifest.StatusAdded, DataFile: df}
	}
	buf.Reset()
	mf, err := manifest.WriteManifest(buf, manifest.ManifestWriteOptions{
		FormatVersion: 2, Spec: spec, PartitionType: partType, Schema: schema,
		Content: manifest.ManifestContentData, SnapshotID: planSnapshotID,
	}, entries)
	if err != nil {
		return mf, fmt.Errorf("manifest %d: %w", m, err)
	}
	mf.Path = filepath.Join(loc, "metadata", fmt.Sprintf("planning-m%05d.avro", m))
	mf.AddedSnapshotID = planSnapshotID
	return mf, os.WriteFile(mf.Path, buf.Bytes(), 0o644)
}

// planningDataFile is the entry of file f of a day (g in the table), with
// every column's metrics as a writer of real files records them.
func planningDataFile(loc, dayDir string, day int32, f, g, files int) (manifest.DataFile, error) {
	rows := planFileRecords(g)
	k := f % planCategories
	dayStart := int64(day) * 86_400_000_000
	slice := int64(86_400_000_000) / int64(files)
	nulls := rows / 50 // the optional columns' nulls
	notNull := rows - nulls
	type bound struct {
		id     int
		t      iceberg.Type
		lo, hi any
	}
	bounds := []bound{
		{planIDID, iceberg.LongType{}, int64(g) * 10_000, int64(g)*10_000 + rows - 1},
		{planIDDate, iceberg.DateType{}, day, day},
		{planIDTs, iceberg.TimestampType{}, dayStart + int64(f)*slice, dayStart + int64(f+1)*slice - 1},
		{planIDCategory, iceberg.StringType{}, category(k), category(k + 1)},
		{planIDAmount, planDecimal, iceberg.DecimalFromInt64(int64(g%1000)*10, 2), iceberg.DecimalFromInt64(100_000+int64(g%5000)*100, 2)},
		{planIDQuantity, iceberg.IntType{}, int32(1), int32(50 + g%50)},
		{planIDPrice, iceberg.DoubleType{}, 0.5 + float64(g%100), 900.25 + float64(g%1000)},
		// Notes are long text; their bounds truncated to 16 bytes, the
		// upper one rounded up, as writers' default metrics mode does.
		{planIDNote, iceberg.StringType{}, "a note about ord", "zzz note about p"},
	}
	df := manifest.DataFile{
		Content:         manifest.ContentData,
		FilePath:        filepath.Join(loc, "data", dayDir, fmt.Sprintf("%05d-%07d.parquet", f, g)),
		FileFormat:      "PARQUET",
		Partition:       []any{day},
		RecordCount:     rows,
		FileSizeInBytes: planFileBytes,
		SplitOffsets:    []int64{4},
	}
	m := manifest.MetricMaps{
		ColumnSizes:     map[int]int64{},
		ValueCounts:     map[int]int64{},
		NullValueCounts: map[int]int64{},
		NaNValueCounts:  map[int]int64{planIDPrice: 0},
		LowerBounds:     map[int][]byte{},
		UpperBounds:     map[int][]byte{},
	}
	for _, b := range bounds {
		lo, err := iceberg.ValueToBytes(b.t, b.lo)
		if err != nil {
			return df, err
		}
		hi, err := iceberg.ValueToBytes(b.t, b.hi)
		if err != nil {
			return df, err
		}
		m.LowerBounds[b.id], m.UpperBounds[b.id] = lo, hi
		m.ValueCounts[b.id] = rows
		m.ColumnSizes[b.id] = planFileBytes / 8
		if b.id >= planIDAmount {
			m.NullValueCounts[b.id] = rows - notNull
		} else {
			m.NullValueCounts[b.id] = 0
		}
	}
	df.Metrics = manifest.MetricsOf(m)
	return df, nil
}

// writePlanningMetadata writes v1.metadata.json and the version hint.
func writePlanningMetadata(loc, listPath string, schema *iceberg.Schema, spec iceberg.PartitionSpec, tbl *planningTable) (string, error) {
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	snapshotID, schemaID := int64(planSnapshotID), schema.ID
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	md := &metadata.Metadata{
		FormatVersion:      2,
		TableUUID:          "6f1c2b9e-5d0a-4c55-9a8e-2b1d3c4e5f60",
		Location:           loc,
		LastSequenceNumber: 1,
		LastUpdatedMs:      created,
		LastColumnID:       planIDNote,
		Schemas:            []*iceberg.Schema{schema},
		CurrentSchemaID:    schema.ID,
		PartitionSpecs:     []iceberg.PartitionSpec{spec},
		DefaultSpecID:      spec.ID,
		LastPartitionID:    iceberg.PartitionFieldIDStart,
		SortOrders:         []iceberg.SortOrder{{OrderID: 0}},
		Properties:         map[string]string{"write.format.default": "parquet"},
		CurrentSnapshotID:  &snapshotID,
		Snapshots: []metadata.Snapshot{{
			SnapshotID: snapshotID, SequenceNumber: 1, TimestampMs: created, ManifestList: listPath, SchemaID: &schemaID,
			Summary: map[string]string{
				"operation":        "append",
				"added-data-files": count(int64(tbl.Files)), "added-records": count(tbl.Records),
				"total-data-files": count(int64(tbl.Files)), "total-records": count(tbl.Records),
				"total-delete-files": "0", "total-position-deletes": "0", "total-equality-deletes": "0",
			},
		}},
		SnapshotLog: []metadata.SnapshotLogEntry{{SnapshotID: snapshotID, TimestampMs: created}},
		Refs:        map[string]metadata.Ref{metadata.MainBranch: {SnapshotID: snapshotID, Type: metadata.RefBranch}},
	}
	var buf bytes.Buffer
	if err := md.Write(&buf); err != nil {
		return "", err
	}
	path := filepath.Join(loc, "metadata", "v1.metadata.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(loc, "metadata", "version-hint.text"), []byte("1"), 0o644)
}
