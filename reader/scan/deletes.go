package scan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/kernels"
)

// Reserved field ids of a position delete file's columns.
const (
	fieldIDDeleteFilePath = 2147483546
	fieldIDDeletePos      = 2147483545
)

var positionDeleteFields = []iceberg.NestedField{
	{ID: fieldIDDeleteFilePath, Name: "file_path", Type: iceberg.StringType{}, Required: true},
	{ID: fieldIDDeletePos, Name: "pos", Type: iceberg.LongType{}, Required: true},
}

// deleteSet is what a task's delete files amount to for its data file:
// the deleted row positions (position deletes and deletion vectors) and
// the equality-delete key sets.
type deleteSet struct {
	positions *roaring64.Bitmap
	// sorted holds positions as an ascending array: reads walk or search
	// it window by window, cheaper than stepping a bitmap's iterator.
	sorted   []uint64
	equality []*equalityDeletes
}

// deleteCache shares parsed delete files between the tasks of one scan: a
// position delete file usually covers many data files, and an equality
// delete file applies to every file of its partition.
type deleteCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	val  any
	err  error
}

func newDeleteCache() *deleteCache { return &deleteCache{entries: map[string]*cacheEntry{}} }

// get returns key's value, loading it once for every reader of the scan.
// A load that failed because its reader was cancelled is not kept: the
// scan's next stream (or another reader still running, whose ctx is live)
// loads again instead of inheriting the cancellation.
func (c *deleteCache) get(ctx context.Context, key string, load func() (any, error)) (any, error) {
	if c == nil {
		return load()
	}
	for {
		c.mu.Lock()
		e, ok := c.entries[key]
		if !ok {
			e = &cacheEntry{}
			c.entries[key] = e
		}
		c.mu.Unlock()
		e.once.Do(func() { e.val, e.err = load() })
		if e.err == nil || !isCancellation(e.err) {
			return e.val, e.err
		}
		c.mu.Lock()
		if c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		if ctx.Err() != nil {
			return nil, e.err
		}
	}
}

func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// loadDeletes reads the task's delete files into a deleteSet. A deletion
// vector, when present, is the only position delete that applies (the
// planner guarantees it); position delete files are filtered to the rows
// naming this data file.
func (t *Task) loadDeletes(ctx context.Context, files fileio.FileIO, cache *deleteCache) (*deleteSet, error) {
	if len(t.Deletes) == 0 {
		return nil, nil
	}
	locations, err := fileio.NewLocationMap(t.Locations)
	if err != nil {
		return nil, err
	}
	ds := &deleteSet{}
	for i := range t.Deletes {
		d := &t.Deletes[i]
		switch {
		case d.Content == int(manifest.ContentPositionDeletes) && d.ContentOffset != nil:
			bm, err := cache.get(ctx, "dv:"+d.Path+fmt.Sprint(*d.ContentOffset), func() (any, error) {
				return readDeletionVector(ctx, files, d)
			})
			if err != nil {
				return nil, fmt.Errorf("deletion vector %s: %w", d.Path, err)
			}
			ds.addPositions(bm.(*roaring64.Bitmap))
		case d.Content == int(manifest.ContentPositionDeletes):
			if d.ReferencedDataFile == t.Path {
				bm, err := cache.get(ctx, "pos1:"+d.Path, func() (any, error) {
					return readPositionsOnly(ctx, files, d)
				})
				if err != nil {
					return nil, fmt.Errorf("position delete file %s: %w", d.Path, err)
				}
				ds.addPositions(bm.(*roaring64.Bitmap))
				continue
			}
			byPath, err := cache.get(ctx, "pos:"+d.Path, func() (any, error) {
				return readPositionDeletes(ctx, files, d, locations)
			})
			if err != nil {
				return nil, fmt.Errorf("position delete file %s: %w", d.Path, err)
			}
			if bm := byPath.(map[string]*roaring64.Bitmap)[t.Path]; bm != nil {
				ds.addPositions(bm)
			}
		case d.Content == int(manifest.ContentEqualityDeletes):
			fields, err := t.equalityFields(d.EqualityIDs)
			if err != nil {
				return nil, err
			}
			eq, err := cache.get(ctx, fmt.Sprintf("eq:%s:%v", d.Path, d.EqualityIDs), func() (any, error) {
				return readEqualityDeletes(ctx, files, d, fields)
			})
			if err != nil {
				return nil, fmt.Errorf("equality delete file %s: %w", d.Path, err)
			}
			ds.equality = append(ds.equality, eq.(*equalityDeletes))
		default:
			return nil, fmt.Errorf("delete file %s has unknown content %d", d.Path, d.Content)
		}
	}
	if ds.positions != nil {
		ds.sorted = ds.positions.ToArray()
	}
	return ds, nil
}

func (ds *deleteSet) addPositions(bm *roaring64.Bitmap) {
	if ds.positions == nil {
		ds.positions = bm.Clone()
		return
	}
	ds.positions.Or(bm)
}

// deletedIn counts the deleted positions in [start, end).
func (ds *deleteSet) deletedIn(start, end int64) int64 {
	return int64(len(ds.positionsIn(start, end)))
}

// positionsIn are the deleted positions in [start, end), ascending.
func (ds *deleteSet) positionsIn(start, end int64) []uint64 {
	if ds == nil || end <= start {
		return nil
	}
	lo := sort.Search(len(ds.sorted), func(i int) bool { return ds.sorted[i] >= uint64(start) })
	hi := lo + sort.Search(len(ds.sorted)-lo, func(i int) bool { return ds.sorted[lo+i] >= uint64(end) })
	return ds.sorted[lo:hi]
}

func (t *Task) equalityFields(ids []int) ([]iceberg.NestedField, error) {
	out := make([]iceberg.NestedField, len(ids))
	for i, id := range ids {
		found := false
		for _, f := range t.EqualityFields {
			if f.ID == id {
				out[i], found = f, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("equality delete key field %d is not described by the task", id)
		}
		if iceberg.IsNested(out[i].Type) || iceberg.IsVariant(out[i].Type) {
			return nil, fmt.Errorf("equality delete key %q is a %s; only primitive keys are supported", out[i].Name, out[i].Type)
		}
	}
	return out, nil
}

// readFile reads every batch of a delete file's columns, calling fn with
// each (the batch is released after fn returns).
func readFile(ctx context.Context, files fileio.FileIO, d *TaskDelete, fields []iceberg.NestedField, fn func(arrow.RecordBatch) error) error {
	if !strings.EqualFold(d.FileFormat, "parquet") {
		return errkind.Errorf(errkind.Unsupported, "delete file format %q is not supported (only Parquet and Puffin deletion vectors)", d.FileFormat)
	}
	// The record count goes with it: a delete file whose footer lost rows
	// would bring deleted rows back (checkRecordCount).
	sub := &Task{Version: taskFormatVersion, Path: d.Path, FileFormat: d.FileFormat, FileSize: d.FileSize, RecordCount: d.RecordCount,
		Fields: fields}
	schema, err := arrowschema.ArrowSchema(fields)
	if err != nil {
		return err
	}
	r, err := sub.open(ctx, readEnv{files: files, alloc: memory.DefaultAllocator, schema: schema})
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
		if err := fn(r.RecordBatch()); err != nil {
			return err
		}
	}
	return r.Err()
}

// readPositionDeletes reads a position delete file into one bitmap of
// positions per data file, keyed by the data file's remapped path.
func readPositionDeletes(ctx context.Context, files fileio.FileIO, d *TaskDelete, locations fileio.LocationMap) (map[string]*roaring64.Bitmap, error) {
	out := map[string]*roaring64.Bitmap{}
	err := readFile(ctx, files, d, positionDeleteFields, func(rec arrow.RecordBatch) error {
		paths, ok1 := rec.Column(0).(*array.String)
		pos, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("file_path and pos read as %s and %s", rec.Column(0).DataType(), rec.Column(1).DataType())
		}
		var last string
		var bm *roaring64.Bitmap
		for i := 0; i < int(rec.NumRows()); i++ {
			if paths.IsNull(i) || pos.IsNull(i) {
				return fmt.Errorf("row %d has a null file_path or pos", i)
			}
			if p := paths.Value(i); bm == nil || p != last {
				last = p
				key := locations.Apply(p)
				if bm = out[key]; bm == nil {
					bm = roaring64.New()
					out[key] = bm
				}
			}
			if v := pos.Value(i); v >= 0 {
				bm.Add(uint64(v))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readPositionsOnly reads the pos column of a position delete file that
// names a single data file: the paths, a large column, are not decoded.
func readPositionsOnly(ctx context.Context, files fileio.FileIO, d *TaskDelete) (*roaring64.Bitmap, error) {
	bm := roaring64.New()
	err := readFile(ctx, files, d, positionDeleteFields[1:], func(rec arrow.RecordBatch) error {
		pos, ok := rec.Column(0).(*array.Int64)
		if !ok {
			return fmt.Errorf("pos read as %s", rec.Column(0).DataType())
		}
		if pos.NullN() > 0 {
			return fmt.Errorf("pos has nulls")
		}
		vals := pos.Int64Values()
		buf := make([]uint64, 0, len(vals))
		for _, v := range vals {
			if v >= 0 {
				buf = append(buf, uint64(v))
			}
		}
		bm.AddMany(buf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bm, nil
}

// readEqualityDeletes reads an equality delete file's key columns (by
// field id, at the table's types, so renamed and promoted keys compare)
// into a set of canonical key encodings.
func readEqualityDeletes(ctx context.Context, files fileio.FileIO, d *TaskDelete, fields []iceberg.NestedField) (*equalityDeletes, error) {
	eq := &equalityDeletes{}
	for _, f := range fields {
		eq.fieldIDs = append(eq.fieldIDs, f.ID)
	}
	// Key columns may be optional in the table even when the delete file
	// wrote them required; read them as optional.
	readFields := make([]iceberg.NestedField, len(fields))
	for i, f := range fields {
		f.Required = false
		f.InitialDefault = nil
		readFields[i] = f
	}
	var hashBuf []uint64
	err := readFile(ctx, files, d, readFields, func(rec arrow.RecordBatch) error {
		keys, err := kernels.NewKeys(rec.Columns())
		if err != nil {
			return err
		}
		hashBuf = eq.add(keys, hashBuf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	eq.index()
	return eq, nil
}
