package metadata

import (
	"encoding/json"
	"fmt"
	"testing"
)

// doc is table metadata as a JSON tree that tests edit before parsing.
type doc = map[string]any

// rollbackTable is a v2 table with three snapshots A ← B ← C committed at
// 1000, 2000 and 3000 ms and then rolled back to A at 4000 ms; tag "v1"
// points at B and branch "dev" at C.
func rollbackTable() doc {
	snap := func(id, parent, seq, ts int64) doc {
		s := doc{
			"snapshot-id": id, "sequence-number": seq, "timestamp-ms": ts,
			"summary":       doc{"operation": "append"},
			"manifest-list": fmt.Sprintf("s3://b/t/metadata/snap-%d.avro", id),
			"schema-id":     0,
		}
		if parent != 0 {
			s["parent-snapshot-id"] = parent
		}
		return s
	}
	return doc{
		"format-version":       2,
		"table-uuid":           "9c12d441-03fe-4693-9a96-a0705ddf69c1",
		"location":             "s3://b/t",
		"last-sequence-number": 3,
		"last-updated-ms":      4000,
		"last-column-id":       2,
		"current-schema-id":    0,
		"schemas": []any{doc{"type": "struct", "schema-id": 0, "fields": []any{
			doc{"id": 1, "name": "id", "required": true, "type": "long"},
			doc{"id": 2, "name": "data", "required": false, "type": "string"},
		}}},
		"default-spec-id":       0,
		"partition-specs":       []any{doc{"spec-id": 0, "fields": []any{}}},
		"last-partition-id":     999,
		"default-sort-order-id": 0,
		"sort-orders":           []any{doc{"order-id": 0, "fields": []any{}}},
		"properties":            doc{},
		"current-snapshot-id":   1,
		"snapshots":             []any{snap(1, 0, 1, 1000), snap(2, 1, 2, 2000), snap(3, 2, 3, 3000)},
		"refs": doc{
			"main": doc{"snapshot-id": 1, "type": "branch"},
			"v1":   doc{"snapshot-id": 2, "type": "tag", "max-ref-age-ms": 86400000},
			"dev":  doc{"snapshot-id": 3, "type": "branch", "min-snapshots-to-keep": 2, "max-snapshot-age-ms": 3600000},
		},
		"snapshot-log": []any{
			doc{"timestamp-ms": 1000, "snapshot-id": 1},
			doc{"timestamp-ms": 2000, "snapshot-id": 2},
			doc{"timestamp-ms": 3000, "snapshot-id": 3},
			doc{"timestamp-ms": 4000, "snapshot-id": 1},
		},
		"metadata-log": []any{},
	}
}

// richV3Table is rollbackTable upgraded to v3 with statistics, partition
// statistics, an encryption key and row lineage on its last snapshot.
func richV3Table() doc {
	d := rollbackTable()
	d["format-version"] = 3
	d["next-row-id"] = 42
	d["statistics"] = []any{doc{
		"snapshot-id": 3, "statistics-path": "s3://b/t/metadata/stats.puffin",
		"file-size-in-bytes": 413, "file-footer-size-in-bytes": 42, "key-metadata": "aWNlYmVyZwo=",
		"blob-metadata": []any{doc{"type": "apache-datasketches-theta-v1", "snapshot-id": 3, "sequence-number": 3,
			"fields": []any{1}, "properties": doc{"ndv": "3"}}},
	}}
	d["partition-statistics"] = []any{doc{"snapshot-id": 3, "statistics-path": "s3://b/t/metadata/p.parquet", "file-size-in-bytes": 43}}
	d["encryption-keys"] = []any{doc{"key-id": "5f819b", "encrypted-key-metadata": "aWNlYmVyZwo=", "encrypted-by-id": "kms", "properties": doc{"a": "b"}}}
	d["snapshots"].([]any)[2].(doc)["key-id"] = "5f819b"
	d["snapshots"].([]any)[2].(doc)["first-row-id"] = 10
	d["snapshots"].([]any)[2].(doc)["added-rows"] = 32
	return d
}

func encode(t testing.TB, d doc) []byte {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t testing.TB, d doc) *Metadata {
	t.Helper()
	m, err := Parse(encode(t, d))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
