package table

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/floedb/floe/iceberg"
)

func TestZZDump(t *testing.T) {
	name := os.Getenv("DUMP")
	if name == "" {
		t.Skip()
	}
	tbl, _ := openFixture(t, name)
	md := tbl.Metadata
	fmt.Println(md.CurrentSchema())
	for _, s := range md.PartitionSpecs {
		fmt.Println("spec", s.ID, s.Fields)
	}
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := tbl.manifestsOf(context.Background(), plan.Snapshot)
	for _, m := range ms {
		fmt.Printf("manifest %s spec %d content %d parts %d\n", m.Path, m.PartitionSpecID, m.Content, len(m.Partitions))
		spec := md.SpecByID(m.PartitionSpecID)
		pt, _ := tbl.PartitionType(spec)
		for i, p := range m.Partitions {
			var lo, hi any
			if p.LowerBound != nil {
				lo, _ = iceberg.ValueFromBytes(pt.Fields[i].Type, p.LowerBound)
			}
			if p.UpperBound != nil {
				hi, _ = iceberg.ValueFromBytes(pt.Fields[i].Type, p.UpperBound)
			}
			fmt.Printf("   null=%v nan=%v lo=%v hi=%v\n", p.ContainsNull, p.ContainsNaN, lo, hi)
		}
	}
	for _, task := range plan.Tasks {
		f := task.File
		fmt.Printf("%s spec=%d part=%v rc=%d vc=%v nc=%v nan=%v\n", f.FilePath, f.SpecID, f.Partition, f.RecordCount, f.ValueCounts, f.NullValueCounts, f.NaNValueCounts)
		for id, b := range f.LowerBounds {
			fld, _ := plan.Schema.FindField(id)
			var lo, hi any
			if fld.Type != nil {
				lo, _ = iceberg.ValueFromBytes(fld.Type, b)
				hi, _ = iceberg.ValueFromBytes(fld.Type, f.UpperBounds[id])
			}
			fmt.Printf("   %d %s lo=%v hi=%v nulls=%v vals=%v nan=%v\n", id, fld.Name, lo, hi, f.NullValueCounts[id], f.ValueCounts[id], f.NaNValueCounts[id])
		}
	}
}
