package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The fixed cost of a small query, phase by phase, on a foreign table
// already written (FLOE_FOREIGN_DIR: a -foreign-data directory of the
// foreign section, e.g. after `go run ./cmd/bench -foreign
// -foreign-rows 3000000 -foreign-data DIR`). Skipped without it: it is a
// profiling aid (go test -bench FixedCost -cpuprofile), not a timed test.
func foreignForBench(b *testing.B) *foreignTable {
	dir := os.Getenv("FLOE_FOREIGN_DIR")
	if dir == "" {
		b.Skip("FLOE_FOREIGN_DIR not set")
	}
	codec := os.Getenv("FLOE_FOREIGN_CODEC")
	if codec == "" {
		codec = "zstd"
	}
	t, err := table.Open(context.Background(), filepath.Join(dir, codec, "table"), table.Options{})
	if err != nil {
		b.Fatal(err)
	}
	plan, err := t.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		b.Fatal(err)
	}
	ft := &foreignTable{Codec: codec, MetadataPath: t.MetadataLocation, Rows: plan.RecordCount()}
	for _, task := range plan.Tasks {
		ft.Files = append(ft.Files, task.File.FilePath)
	}
	return ft
}

func BenchmarkFixedCost(b *testing.B) {
	ft := foreignForBench(b)
	var clustered foreignQuery
	for _, q := range foreignQueries(ft.Rows) {
		if q.Name == "clustered 1%" {
			clustered = q
		}
	}
	ctx := context.Background()
	b.Run("open", func(b *testing.B) {
		for range b.N {
			if _, err := table.Open(ctx, ft.MetadataPath, table.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	t, _ := table.Open(ctx, ft.MetadataPath, table.Options{})
	filter, _ := expr.ParseFilter(clustered.Filter)
	b.Run("new", func(b *testing.B) {
		for range b.N {
			if _, err := scan.New(ctx, t, scan.Options{Threads: 1, Filter: filter}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first batch", func(b *testing.B) {
		for range b.N {
			sc, err := scan.New(ctx, t, scan.Options{Threads: 1, Filter: filter})
			if err != nil {
				b.Fatal(err)
			}
			rr, err := sc.Reader(ctx, foreignAlloc)
			if err != nil {
				b.Fatal(err)
			}
			rr.Next()
			rr.Release()
		}
	})
	b.Run("query", func(b *testing.B) {
		for range b.N {
			if _, err := floeForeign(ft, clustered, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkForeignQuery runs one foreign query (FLOE_FOREIGN_QUERY, a
// name or part of one) at one thread, and its decompression floor, for
// profiles of either (-bench 'ForeignQuery/floe' -cpuprofile).
func BenchmarkForeignQuery(b *testing.B) {
	ft := foreignForBench(b)
	name := os.Getenv("FLOE_FOREIGN_QUERY")
	for _, q := range foreignQueries(ft.Rows) {
		if name == "" || !strings.Contains(q.Name, name) {
			continue
		}
		b.Run("floe", func(b *testing.B) {
			for range b.N {
				if _, err := floeForeign(ft, q, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("floor", func(b *testing.B) {
			for range b.N {
				if _, err := foreignFloor(ft, q.Columns); err != nil {
					b.Fatal(err)
				}
			}
		})
		return
	}
	b.Fatalf("no query named %q", name)
}
