package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/avro"
)

// A plan decodes the records of one writer schema straight into our
// structs. It is compiled from the schema by Iceberg field id: each field
// of a record we know is matched by its field-id property (or, for writers
// that predate ids, by the spec's name) and everything else is skipped, so
// names, field order and extra fields of the writer do not matter.

type fieldFn[T any] func(r *reader, dst *T) error

// A fieldCompiler builds the decoder of one field from the writer's type
// of its value, a union with null already resolved (see nullable.go).
type fieldCompiler[T any] func(n *avro.SchemaNode, s site) (fieldFn[T], error)

// site is where a field sits: the partition layout, the schema depth and
// the field's spec path (data_file.lower_bounds), for errors.
type site struct {
	parts *partitionLayout
	depth int
	path  string
}

// level describes an Iceberg-defined record: the fields we decode by id.
type level[T any] struct {
	what   string
	fields map[int]fieldCompiler[T]
	byName map[string]int // spec names, for fields without an id
	// required are the fields the spec requires in every format version:
	// the schema must have them and they must not be null.
	required []int
	// partitionTuple is the id of the field holding the partition tuple
	// (data_file's 102), 0 for a level without one. Where the spec has no
	// partition fields its null is the empty tuple, not an error: BigQuery
	// writes partition: null for the files of an unpartitioned spec.
	partitionTuple int
}

// nullRequired says whether a null of field id is an error under the
// partition layout parts.
func (l *level[T]) nullRequired(id int, parts *partitionLayout) bool {
	if l.partitionTuple != 0 && id == l.partitionTuple && parts != nil && len(parts.ids) == 0 {
		return false
	}
	return slices.Contains(l.required, id)
}

func (l *level[T]) compile(n *avro.SchemaNode, parts *partitionLayout, depth int) (fieldFn[T], error) {
	if err := checkDepth(depth); err != nil {
		return nil, err
	}
	if n.Type != "record" {
		return nil, fmt.Errorf("%s is an Avro %s, not a record", l.what, n.Type)
	}
	fns := make([]fieldFn[T], 0, len(n.Fields))
	seen := map[int]string{}
	for i := range n.Fields {
		f := &n.Fields[i]
		id, hasID, err := fieldID(f.Props)
		if err != nil {
			return nil, fmt.Errorf("%s field %q: %w", l.what, f.Name, err)
		}
		if !hasID {
			id, hasID = l.byName[f.Name]
		}
		compile, known := l.fields[id]
		if !hasID || !known {
			skip, err := compileSkip(&f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s field %q: %w", l.what, f.Name, err)
			}
			fns = append(fns, func(r *reader, _ *T) error { return skip(r) })
			continue
		}
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s fields %q and %q both have field id %d", l.what, prev, f.Name, id)
		}
		seen[id] = f.Name
		path := l.what + "." + l.specName(id, f.Name)
		value, nulls, err := resolveNull(&f.Type, path, l.nullRequired(id, parts))
		if err != nil {
			return nil, fmt.Errorf("%s field %q (id %d): %w", l.what, f.Name, id, err)
		}
		fn, err := compile(value, site{parts: parts, depth: depth + 1, path: path})
		if err != nil {
			return nil, fmt.Errorf("%s field %q (id %d): %w", l.what, f.Name, id, err)
		}
		fns = append(fns, guardNull(nulls, fn))
	}
	for _, id := range l.required {
		if _, ok := seen[id]; !ok {
			return nil, fmt.Errorf("%s has no field with id %d", l.what, id)
		}
	}
	return func(r *reader, dst *T) error {
		for _, fn := range fns {
			if err := fn(r, dst); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// specName is the spec's name of field id, for messages: the writer's
// name when it is one of the spec's (older names included), else the
// shortest spec name.
func (l *level[T]) specName(id int, writerName string) string {
	if l.byName[writerName] == id {
		return writerName
	}
	best := ""
	for name, i := range l.byName {
		if i == id && (best == "" || len(name) < len(best) || len(name) == len(best) && name < best) {
			best = name
		}
	}
	if best == "" {
		return writerName
	}
	return best
}

// fieldID reads an Iceberg id property; JSON numbers arrive as int64 or
// float64, and some writers quote them.
func fieldID(props map[string]any) (int, bool, error) {
	v, ok := props["field-id"]
	if !ok {
		return 0, false, nil
	}
	var id int64
	switch x := v.(type) {
	case int64:
		id = x
	case float64:
		if x != float64(int64(x)) {
			return 0, false, fmt.Errorf("field-id %v is not an integer", x)
		}
		id = int64(x)
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, false, fmt.Errorf("field-id %v is not an integer", x)
		}
		id = n
	case string:
		n, err := strconv.ParseInt(x, 10, 32)
		if err != nil {
			return 0, false, fmt.Errorf("field-id %q is not an integer", x)
		}
		id = n
	default:
		return 0, false, fmt.Errorf("field-id %v is not an integer", v)
	}
	if id < 0 || id > 1<<31-1 {
		return 0, false, fmt.Errorf("field-id %d is out of range", id)
	}
	return int(id), true, nil
}

// Field compilers for the value shapes manifests use.

func scalar[T, V any](kinds []string, read func(r *reader, n *avro.SchemaNode) (V, error), set func(*T, V)) fieldCompiler[T] {
	return func(n *avro.SchemaNode, _ site) (fieldFn[T], error) {
		if !slices.Contains(kinds, n.Type) {
			return nil, fmt.Errorf("is an Avro %s, not one of %v", n.Type, kinds)
		}
		return func(r *reader, dst *T) error {
			v, err := read(r, n)
			if err != nil {
				return err
			}
			set(dst, v)
			return nil
		}, nil
	}
}

var (
	longKinds  = []string{"int", "long"}
	textKinds  = []string{"string", "bytes"}
	bytesKinds = []string{"bytes", "string", "fixed"}
)

func readLong(r *reader, _ *avro.SchemaNode) (int64, error) { return r.long() }

func readString(r *reader, _ *avro.SchemaNode) (string, error) {
	b, err := r.bytes()
	if err != nil {
		return "", err
	}
	return internString(b), nil
}

func readBytes(r *reader, n *avro.SchemaNode) ([]byte, error) {
	if n.Type == "fixed" {
		return r.fixed(n.Size)
	}
	return r.bytes()
}

func readBool(r *reader, _ *avro.SchemaNode) (bool, error) { return r.boolean() }

func longInto[T any](set func(*T, int64)) fieldCompiler[T] {
	return scalar(longKinds, readLong, set)
}

func stringInto[T any](set func(*T, string)) fieldCompiler[T] {
	return scalar(textKinds, readString, set)
}

func bytesInto[T any](set func(*T, []byte)) fieldCompiler[T] {
	return scalar(bytesKinds, readBytes, set)
}

func boolInto[T any](set func(*T, bool)) fieldCompiler[T] {
	return scalar([]string{"boolean"}, readBool, set)
}

// internString avoids allocating the few strings every entry repeats.
func internString(b []byte) string {
	switch string(b) {
	case "PARQUET":
		return "PARQUET"
	case "parquet":
		return "parquet"
	case "AVRO":
		return "AVRO"
	case "ORC":
		return "ORC"
	case "PUFFIN":
		return "PUFFIN"
	}
	return string(b)
}

// arrayOf decodes an array whose items take at least one byte each (a
// null item takes one too); item decodes one item, which the spec always
// requires, into dst. start is called per block with its item count.
func arrayOf[T any](n *avro.SchemaNode, s site, compileItem func(item *avro.SchemaNode) (fieldFn[T], error),
	start func(dst *T, count int)) (fieldFn[T], error) {
	itemType, nulls, err := arrayItem(n, s)
	if err != nil {
		return nil, err
	}
	item, err := compileItem(itemType)
	if err != nil {
		return nil, err
	}
	return func(r *reader, dst *T) error {
		for {
			count, err := r.itemCount()
			if err != nil {
				return err
			}
			if count == 0 {
				return nil
			}
			start(dst, count)
			for range count {
				if _, err := nulls.present(r); err != nil {
					return err
				}
				if err := item(r, dst); err != nil {
					return err
				}
			}
		}
	}, nil
}

// arrayItem is the item type of the array n at s, its null resolved.
func arrayItem(n *avro.SchemaNode, s site) (*avro.SchemaNode, nullPolicy, error) {
	if err := checkDepth(s.depth); err != nil {
		return nil, nullPolicy{}, err
	}
	if n.Type != "array" || n.Items == nil {
		return nil, nullPolicy{}, fmt.Errorf("is an Avro %s, not an array", n.Type)
	}
	return resolveNull(n.Items, s.path+" element", true)
}

func longsInto[T any](get func(*T) *[]int64) fieldCompiler[T] {
	return func(n *avro.SchemaNode, s site) (fieldFn[T], error) {
		return arrayOf(n, s, func(item *avro.SchemaNode) (fieldFn[T], error) {
			if !slices.Contains(longKinds, item.Type) {
				return nil, fmt.Errorf("array of %s, not of long", item.Type)
			}
			return func(r *reader, dst *T) error {
				v, err := r.long()
				*get(dst) = append(*get(dst), v)
				return err
			}, nil
		}, func(dst *T, count int) { *get(dst) = slices.Grow(*get(dst), count) })
	}
}

func intsInto[T any](get func(*T) *[]int) fieldCompiler[T] {
	return func(n *avro.SchemaNode, s site) (fieldFn[T], error) {
		return arrayOf(n, s, func(item *avro.SchemaNode) (fieldFn[T], error) {
			if !slices.Contains(longKinds, item.Type) {
				return nil, fmt.Errorf("array of %s, not of int", item.Type)
			}
			return func(r *reader, dst *T) error {
				v, err := r.long()
				*get(dst) = append(*get(dst), int(v))
				return err
			}, nil
		}, func(dst *T, count int) { *get(dst) = slices.Grow(*get(dst), count) })
	}
}

// metricsInto decodes a metric map of data_file (column_sizes ...
// upper_bounds), stored as an array of {key, value} records (the spec
// fixes key and value by position), into the entry's Metrics. A null key
// is an error; an entry with a null value, which the spec does not allow
// either, says nothing and is dropped.
func metricsInto(kind metricKind) fieldCompiler[rawEntry] {
	valueKinds := longKinds
	if kind.isBound() {
		valueKinds = bytesKinds
	}
	return func(n *avro.SchemaNode, s site) (fieldFn[rawEntry], error) {
		item, itemNull, err := arrayItem(n, s)
		if err != nil {
			return nil, err
		}
		if item.Type != "record" || len(item.Fields) != 2 {
			return nil, fmt.Errorf("a map must be stored as an array of 2-field records")
		}
		key, keyNull, err := resolveNull(&item.Fields[0].Type, s.path+" key", true)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(longKinds, key.Type) {
			return nil, fmt.Errorf("map key is an Avro %s, not an int", key.Type)
		}
		value, valueNull, err := resolveNull(&item.Fields[1].Type, s.path+" value", false)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(valueKinds, value.Type) {
			return nil, fmt.Errorf("map value is an Avro %s, not one of %v", value.Type, valueKinds)
		}
		// One loop over the items rather than arrayOf's call per item (and
		// another per key): a million-file table has 40 or so per file.
		return func(r *reader, dst *rawEntry) error {
			for {
				count, err := r.itemCount()
				if err != nil || count == 0 {
					return err
				}
				for range count {
					if _, err := itemNull.present(r); err != nil {
						return err
					}
					if _, err := keyNull.present(r); err != nil {
						return err
					}
					k, err := r.long()
					if err != nil {
						return err
					}
					if ok, err := valueNull.present(r); err != nil {
						return err
					} else if !ok {
						continue
					}
					if !kind.isBound() {
						v, err := r.long()
						if err != nil {
							return err
						}
						dst.metrics.addCount(kind, k, v)
						continue
					}
					v, err := readBytes(r, value)
					if err != nil {
						return err
					}
					dst.metrics.addBound(kind, k, v)
				}
			}
		}, nil
	}
}

// recordsInto decodes an array of records described by sub.
func recordsInto[T, E any](sub *level[E], get func(*T) *[]E) fieldCompiler[T] {
	return func(n *avro.SchemaNode, s site) (fieldFn[T], error) {
		return arrayOf(n, s, func(item *avro.SchemaNode) (fieldFn[T], error) {
			decode, err := sub.compile(item, s.parts, s.depth+2)
			if err != nil {
				return nil, err
			}
			return func(r *reader, dst *T) error {
				var e E
				err := decode(r, &e)
				*get(dst) = append(*get(dst), e)
				return err
			}, nil
		}, func(dst *T, count int) { *get(dst) = slices.Grow(*get(dst), count) })
	}
}

// nested decodes a required record whose fields land in the same target.
func nested[T any](sub *level[T]) fieldCompiler[T] {
	return func(n *avro.SchemaNode, s site) (fieldFn[T], error) {
		return sub.compile(n, s.parts, s.depth)
	}
}

// plans caches compiled decoders by writer schema: the manifests of a table
// share a handful of schemas. The cache is dropped when it grows large, so
// hostile inputs cannot fill memory.
var plans struct {
	sync.Mutex
	m        map[string]any
	disabled bool // for fuzzing, whose coverage must not depend on history
}

const maxCachedPlans = 256

func cachedPlan[P any](key string, build func() (P, error)) (P, error) {
	plans.Lock()
	p, ok := plans.m[key].(P)
	disabled := plans.disabled
	plans.Unlock()
	if ok {
		return p, nil
	}
	p, err := build()
	if err != nil || disabled {
		return p, err
	}
	plans.Lock()
	if plans.m == nil || len(plans.m) >= maxCachedPlans {
		plans.m = map[string]any{}
	}
	plans.m[key] = p
	plans.Unlock()
	return p, nil
}

// schemaTree parses a header schema with the Avro library (which
// validates it) and expands named-type references.
func schemaTree(schemaJSON []byte) (*avro.SchemaNode, error) {
	s, err := avro.Parse(string(schemaJSON), avro.WithLaxNames(nil))
	if err != nil {
		return nil, fmt.Errorf("the file's Avro schema: %w", err)
	}
	return s.Root().ExpandReferences(), nil
}

func planKey(kind string, schemaJSON []byte, parts *partitionLayout) string {
	var b strings.Builder
	b.WriteString(kind)
	if parts != nil {
		for i, id := range parts.ids {
			fmt.Fprintf(&b, "\x00%d\x00%s", id, parts.names[i])
		}
	}
	b.WriteString("\x01")
	b.Write(schemaJSON)
	return b.String()
}
