package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

func runInfo(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"map", "warehouse"}, []string{"json", "no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) != 1 {
		return fmt.Errorf("usage: floe info TABLE [--map PREFIX=TARGET]… [--json]")
	}
	t, err := a.loadTable(ctx, a.positional[0])
	if err != nil {
		return err
	}
	if a.bools["json"] {
		return writeJSON(out, t.Metadata)
	}
	return printInfo(out, t)
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printInfo(out io.Writer, t *table.Table) error {
	md := t.Metadata
	w := &lineWriter{out: out}
	w.printf("table:           %s\n", md.Location)
	w.printf("metadata file:   %s\n", t.MetadataLocation)
	w.printf("format version:  %d\n", md.FormatVersion)
	if md.TableUUID != "" {
		w.printf("uuid:            %s\n", md.TableUUID)
	}
	w.printf("last updated:    %s\n", formatMs(md.LastUpdatedMs))
	if cur := md.CurrentSnapshot(); cur != nil {
		w.printf("current snapshot: %d (sequence %d, %s)\n", cur.SnapshotID, cur.SequenceNumber, cur.Operation())
	} else {
		w.printf("current snapshot: none (empty table)\n")
	}
	if md.FormatVersion >= 3 {
		w.printf("next row id:     %d\n", md.NextRowID)
	}

	for _, s := range md.Schemas {
		marker := ""
		if s.ID == md.CurrentSchemaID {
			marker = " (current)"
		}
		w.printf("\nschema %d%s:\n", s.ID, marker)
		printFields(w, s.Fields, "  ")
	}
	for _, spec := range md.PartitionSpecs {
		marker := ""
		if spec.ID == md.DefaultSpecID {
			marker = " (default)"
		}
		w.printf("\npartition spec %d%s:", spec.ID, marker)
		if len(spec.Fields) == 0 {
			w.printf(" unpartitioned\n")
			continue
		}
		w.printf("\n")
		schema := md.CurrentSchema()
		for _, f := range spec.Fields {
			src := fmt.Sprintf("column %d", f.SourceID)
			if name, ok := schema.FullName(f.SourceID); ok {
				src = name
			}
			w.printf("  %d: %s = %s(%s)\n", f.FieldID, f.Name, f.Transform, src)
		}
	}
	for _, o := range md.SortOrders {
		if len(o.Fields) == 0 {
			continue
		}
		w.printf("\nsort order %d:\n", o.OrderID)
		for _, f := range o.Fields {
			w.printf("  %s(column %d) %s %s\n", f.Transform, f.SourceID, f.Direction, f.NullOrder)
		}
	}
	if len(md.Properties) > 0 {
		w.printf("\nproperties:\n")
		for _, k := range sortedKeys(md.Properties) {
			v := md.Properties[k]
			if len(v) > 120 {
				v = v[:117] + "..."
			}
			w.printf("  %s = %s\n", k, v)
		}
	}
	if len(md.Refs) > 0 {
		w.printf("\nrefs:\n")
		for _, name := range sortedKeys(md.Refs) {
			r := md.Refs[name]
			w.printf("  %s: %s → %d\n", name, r.Type, r.SnapshotID)
		}
	}
	w.printf("\nsnapshots (%d):\n", len(md.Snapshots))
	for _, s := range md.Snapshots {
		printSnapshot(w, &s)
	}
	return w.err
}

func printSnapshot(w *lineWriter, s *metadata.Snapshot) {
	parent := "none"
	if s.ParentSnapshotID != nil {
		parent = fmt.Sprint(*s.ParentSnapshotID)
	}
	w.printf("  %d  seq %d  %s  parent %s", s.SnapshotID, s.SequenceNumber, formatMs(s.TimestampMs), parent)
	if s.SchemaID != nil {
		w.printf("  schema %d", *s.SchemaID)
	}
	w.printf("\n")
	if len(s.Summary) > 0 {
		parts := make([]string, 0, len(s.Summary))
		for _, k := range sortedKeys(s.Summary) {
			parts = append(parts, k+"="+s.Summary[k])
		}
		w.printf("      %s\n", strings.Join(parts, " "))
	}
}

func printFields(w *lineWriter, fields []iceberg.NestedField, indent string) {
	for _, f := range fields {
		req := "optional"
		if f.Required {
			req = "required"
		}
		w.printf("%s%d: %s %s %s", indent, f.ID, f.Name, req, typeName(f.Type))
		if f.InitialDefault != nil {
			if b, err := iceberg.ValueToJSON(f.Type, f.InitialDefault); err == nil {
				w.printf("  initial-default %s", b)
			}
		}
		if f.WriteDefault != nil {
			if b, err := iceberg.ValueToJSON(f.Type, f.WriteDefault); err == nil {
				w.printf("  write-default %s", b)
			}
		}
		w.printf("\n")
		printNested(w, f.Type, indent+"    ")
	}
}

func printNested(w *lineWriter, t iceberg.Type, indent string) {
	switch t := t.(type) {
	case *iceberg.StructType:
		printFields(w, t.Fields, indent)
	case *iceberg.ListType:
		printFields(w, []iceberg.NestedField{{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}}, indent)
	case *iceberg.MapType:
		printFields(w, []iceberg.NestedField{
			{ID: t.KeyID, Name: "key", Type: t.Key, Required: true},
			{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired},
		}, indent)
	}
}

// typeName names nested types by kind only: their fields follow indented.
func typeName(t iceberg.Type) string {
	switch t.(type) {
	case *iceberg.StructType:
		return "struct"
	case *iceberg.ListType:
		return "list"
	case *iceberg.MapType:
		return "map"
	}
	return t.String()
}

func formatMs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000 UTC")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineWriter keeps the first write error so printing code stays linear.
type lineWriter struct {
	out io.Writer
	err error
}

func (w *lineWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.out, format, args...)
	}
}
