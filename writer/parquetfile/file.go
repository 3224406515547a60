package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Order is how a column's values compare for statistics and page indexes.
type Order uint8

const (
	// OrderNone writes no bounds (geometry and geography: no order).
	OrderNone Order = iota
	OrderSigned
	OrderUnsigned // byte arrays, compared as unsigned bytes
	OrderFloat    // IEEE floats and doubles; NaN never becomes a bound
	OrderBoolean
)

// Column describes one leaf column.
type Column struct {
	Path   []string
	Type   format.Type
	Length int // FIXED_LEN_BYTE_ARRAY width
	MaxDef int
	MaxRep int
	// Dictionary starts each chunk dictionary-encoded.
	Dictionary bool
	Order      Order
	// BloomFPP, when above 0, writes a split-block bloom filter of each
	// chunk's values sized for this false-positive probability (bloom.go).
	BloomFPP float64
}

// Config is what every file of a writer shares.
type Config struct {
	Schema  []format.SchemaElement // depth-first, the root first
	Columns []Column               // the leaves, in file order
	Orders  []format.ColumnOrder   // one per leaf
	Codec   compress.Codec
	// PageSize is the encoded bytes, PageRowLimit the rows (0: no limit),
	// at which a chunk's page is full (Chunk.Full, Chunk.RowsLeft).
	PageSize     int
	PageRowLimit int
	// DictionaryMaxBytes is the PLAIN size past which a chunk's dictionary
	// stops growing and the rest of the chunk is written PLAIN.
	DictionaryMaxBytes int
	KeyValue           []format.KeyValue
	CreatedBy          string
	// BloomMaxBytes caps a chunk's bloom filter bitset; 0 means
	// DefaultBloomMaxBytes.
	BloomMaxBytes int
}

// Validate reports a configuration that cannot describe a file.
func (c *Config) Validate() error {
	if len(c.Schema) == 0 || len(c.Columns) == 0 {
		return errors.New("parquetfile: a schema with at least one column is required")
	}
	if len(c.Orders) != len(c.Columns) {
		return fmt.Errorf("parquetfile: %d column orders for %d columns", len(c.Orders), len(c.Columns))
	}
	if c.Codec == nil {
		return errors.New("parquetfile: no codec")
	}
	for _, col := range c.Columns {
		if col.MaxDef > 255 || col.MaxRep > 255 || col.MaxDef < 0 || col.MaxRep < 0 {
			return fmt.Errorf("parquetfile: column %v: levels beyond 0-255", col.Path)
		}
		if col.Type == format.FixedLenByteArray && col.Length <= 0 {
			return fmt.Errorf("parquetfile: column %v: fixed length %d", col.Path, col.Length)
		}
		if col.BloomFPP != 0 && (!(col.BloomFPP > 0 && col.BloomFPP < 1) || col.Type == format.Boolean) {
			return fmt.Errorf("parquetfile: column %v: a bloom filter needs a probability in (0, 1) and a non-boolean column, not %v of %v", col.Path, col.BloomFPP, col.Type)
		}
	}
	return nil
}

// File is one Parquet file being written to w. Columns are filled through
// their Chunks (each may be used by its own goroutine); FlushRowGroup and
// Close write what they hold, in column order.
type File struct {
	cfg *Config
	out io.Writer
	// offset is where the next bytes go. A row group is written by a
	// goroutine of its own (flushing) while the next one is encoded, so
	// offset runs ahead of what reached out until it is done.
	offset   int64
	flushing chan struct{}
	flushErr error // the row group writer's, read once flushing is done
	chunks   []*Chunk
	rows     int64 // in finished row groups
	groups   []format.RowGroup
	colIndex [][]*format.ColumnIndex // per row group, per column (nil: none)
	offIndex [][]format.OffsetIndex
	blooms   [][][]byte // per row group, per column (nil: none)
	err      error
}

var magic = []byte("PAR1")

// New starts a file on out (writing its leading magic).
func New(out io.Writer, cfg *Config) (*File, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &File{cfg: cfg, out: out}
	f.chunks = make([]*Chunk, len(cfg.Columns))
	for i := range cfg.Columns {
		f.chunks[i] = newChunk(&cfg.Columns[i], cfg)
	}
	if err := f.write(magic); err != nil {
		return nil, err
	}
	return f, nil
}

// Chunk is the i-th column's chunk of the row group being built.
func (f *File) Chunk(i int) *Chunk { return f.chunks[i] }

// Written is the bytes written or being written to the output.
func (f *File) Written() int64 { return f.offset }

// wait waits for the row group being written, and returns the first
// error of any write.
func (f *File) wait() error {
	if f.flushing != nil {
		<-f.flushing
		f.flushing = nil
		if f.err == nil {
			f.err = f.flushErr
		}
	}
	return f.err
}

// Abort waits for a row group being written; the caller then discards
// the output.
func (f *File) Abort() { f.wait() }

// Buffered estimates the bytes the row group being built will take.
func (f *File) Buffered() int64 {
	var n int64
	for _, c := range f.chunks {
		n += c.buffered()
	}
	return n
}

// writeIndex writes a column or offset index and records where it went.
func (f *File) writeIndex(index any, offset *int64, length *int32) error {
	b, err := thrift.Marshal(&thrift.CompactProtocol{}, index)
	if err != nil {
		return err
	}
	*offset, *length = f.offset, int32(len(b))
	return f.write(b)
}

// write writes b to the output at the offset, which it advances. The
// caller waits for any row group being written first.
func (f *File) write(b []byte) error {
	if f.err != nil {
		return f.err
	}
	f.offset += int64(len(b))
	f.err = writeAll(f.out, b)
	return f.err
}

func writeAll(out io.Writer, b []byte) error {
	n, err := out.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return err
}

// FlushRowGroup starts writing the row group being built, if it holds
// rows, and empties the chunks for the next one. Every chunk must hold the
// same number of rows. The bytes go out in the background, one row group
// at a time: in the write section (benchmarks, -writes, snappy) writing
// them inline held two threads to 1.70× the speed of one.
func (f *File) FlushRowGroup() error {
	if f.err != nil {
		return f.err
	}
	rows := f.chunks[0].rows()
	if rows == 0 {
		return nil
	}
	g := format.RowGroup{NumRows: rows, FileOffset: f.offset, Ordinal: int16(len(f.groups))}
	cols := make([]format.ColumnChunk, len(f.chunks))
	colIndex := make([]*format.ColumnIndex, len(f.chunks))
	offIndex := make([]format.OffsetIndex, len(f.chunks))
	var blooms [][]byte
	segments := make([][]byte, 0, 2*len(f.chunks))
	buffers := make([]blockBuffer, 0, len(f.chunks))
	// A failure part way leaves chunks emptied and offsets advanced: it is
	// the file's last word (f.err), like a failed write.
	fail := func(err error) error {
		f.err = err
		return err
	}
	for i, c := range f.chunks {
		if c.rows() != rows {
			return fail(fmt.Errorf("parquetfile: column %v holds %d rows, column %v %d", c.col.Path, c.rows(), f.chunks[0].col.Path, rows))
		}
		if err := c.finishPage(); err != nil {
			return fail(err)
		}
		start := f.offset
		meta, dict, err := c.columnMeta(start)
		if err != nil {
			return fail(err)
		}
		segments = append(segments, dict)
		f.offset += int64(len(dict) + c.pages.len())
		cols[i] = format.ColumnChunk{FileOffset: start, MetaData: meta}
		colIndex[i] = c.columnIndex()
		offIndex[i] = c.offsetIndex(meta.DataPageOffset)
		if c.bloom != nil && !c.bloom.empty() {
			b, err := c.bloom.encode()
			if err != nil {
				return fail(err)
			}
			if blooms == nil {
				blooms = make([][]byte, len(f.chunks))
			}
			blooms[i] = b
		}
		g.TotalByteSize += meta.TotalUncompressedSize
		g.TotalCompressedSize += meta.TotalCompressedSize
		buffers = append(buffers, c.pages) // the writing goroutine's now
		c.reset()
	}
	g.Columns = cols
	f.groups = append(f.groups, g)
	f.colIndex = append(f.colIndex, colIndex)
	f.offIndex = append(f.offIndex, offIndex)
	f.blooms = append(f.blooms, blooms)
	f.rows += rows
	if err := f.wait(); err != nil {
		return err
	}
	done := make(chan struct{})
	f.flushing = done
	out := f.out
	go func() {
		defer close(done)
		write := func(b []byte) error { return writeAll(out, b) }
		for i := range buffers {
			if f.flushErr = write(segments[i]); f.flushErr != nil {
				break
			}
			if f.flushErr = buffers[i].writeTo(write); f.flushErr != nil {
				break
			}
		}
		for i := range buffers {
			buffers[i].release()
		}
	}()
	return nil
}

// Close flushes the last row group and writes the page indexes and the
// footer. It returns the footer; it does not close the output.
func (f *File) Close() (*format.FileMetaData, error) {
	if err := f.FlushRowGroup(); err != nil {
		f.wait()
		return nil, err
	}
	if err := f.wait(); err != nil {
		return nil, err
	}
	// Bloom filters, then column indexes of every chunk, then offset
	// indexes, as parquet-mr lays them out: a reader fetches each kind in
	// one read. The filters wait here (at most BloomMaxBytes per chunk)
	// rather than go between row groups, so the data stays contiguous.
	for g := range f.groups {
		for i, b := range f.blooms[g] {
			if b == nil {
				continue
			}
			md := &f.groups[g].Columns[i].MetaData
			md.BloomFilterOffset, md.BloomFilterLength = f.offset, int32(len(b))
			if err := f.write(b); err != nil {
				return nil, err
			}
		}
	}
	for g := range f.groups {
		for i := range f.groups[g].Columns {
			cc := &f.groups[g].Columns[i]
			if ci := f.colIndex[g][i]; ci != nil {
				if err := f.writeIndex(ci, &cc.ColumnIndexOffset, &cc.ColumnIndexLength); err != nil {
					return nil, err
				}
			}
		}
	}
	for g := range f.groups {
		for i := range f.groups[g].Columns {
			cc := &f.groups[g].Columns[i]
			if err := f.writeIndex(&f.offIndex[g][i], &cc.OffsetIndexOffset, &cc.OffsetIndexLength); err != nil {
				return nil, err
			}
		}
	}
	meta := &format.FileMetaData{
		Version:          2,
		Schema:           f.cfg.Schema,
		NumRows:          f.rows,
		RowGroups:        f.groups,
		KeyValueMetadata: f.cfg.KeyValue,
		CreatedBy:        f.cfg.CreatedBy,
		ColumnOrders:     f.cfg.Orders,
	}
	b, err := thrift.Marshal(&thrift.CompactProtocol{}, meta)
	if err != nil {
		return nil, err
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)))
	b = append(b, magic...)
	if err := f.write(b); err != nil {
		return nil, err
	}
	return meta, nil
}
