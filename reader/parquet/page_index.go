package parquet

import (
	"fmt"
	"io"
)

// PageLocation is one data page as the offset index records it.
type PageLocation struct {
	Offset             int64
	CompressedPageSize int32
	FirstRowIndex      int64
}

// OffsetIndex reads a column chunk's offset index (page locations), or
// returns nil when the writer stored none.
func (f *File) OffsetIndex(c *ColumnChunk) ([]PageLocation, error) {
	if c.OffsetIndexLength <= 0 {
		return nil, nil
	}
	if c.OffsetIndexOffset < 0 || c.OffsetIndexOffset > f.size || int64(c.OffsetIndexLength) > f.size-c.OffsetIndexOffset {
		return nil, fmt.Errorf("offset index at [%d,+%d) lies outside the file", c.OffsetIndexOffset, c.OffsetIndexLength)
	}
	buf := make([]byte, c.OffsetIndexLength)
	if n, err := f.readAt(buf, c.OffsetIndexOffset); n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading offset index: %w", err)
	}
	return ParseOffsetIndex(buf)
}

func ParseOffsetIndex(buf []byte) ([]PageLocation, error) {
	r := &ThriftReader{Buf: buf}
	var locs []PageLocation
	err := r.readStruct(func(id int16, typ byte) error {
		if id != 1 || typ != thriftList {
			return r.skip(typ)
		}
		_, n, err := r.listHeader()
		if err != nil {
			return err
		}
		locs = make([]PageLocation, 0, min(n, 1024))
		for range n {
			var loc PageLocation
			err := r.readStruct(func(id int16, typ byte) error {
				var err error
				switch {
				case id == 1 && expect(typ, thriftI64):
					loc.Offset, err = r.i64()
				case id == 2 && expect(typ, thriftI32):
					loc.CompressedPageSize, err = r.i32()
				case id == 3 && expect(typ, thriftI64):
					loc.FirstRowIndex, err = r.i64()
				default:
					err = r.skip(typ)
				}
				return err
			})
			if err != nil {
				return err
			}
			locs = append(locs, loc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("offset index: %w", err)
	}
	return locs, nil
}

// ByteRange is a span of the file to fetch.
type ByteRange struct{ Off, Size int64 }

// planChunkRead picks the bytes of a chunk needed for rows [start,end):
// with an offset index, the dictionary page and the data pages holding
// those rows; without one, the whole chunk. skipped is the number of rows
// in data pages left out before the first one fetched.
func (f *File) planChunkRead(c *ColumnChunk, start, end, rowGroupRows int64) (ranges []ByteRange, skipped int64, err error) {
	whole := []ByteRange{{c.Start(), c.TotalCompressedSize}}
	if (start == 0 && end >= rowGroupRows) || c.OffsetIndexLength <= 0 {
		return whole, 0, nil
	}
	locs, err := f.OffsetIndex(c)
	if err != nil || len(locs) == 0 {
		// A broken index only costs the saving.
		return whole, 0, nil
	}
	chunkEnd := c.Start() + c.TotalCompressedSize
	first, last := 0, len(locs)-1
	for i, l := range locs {
		if l.Offset < c.Start() || l.CompressedPageSize < 0 || l.Offset+int64(l.CompressedPageSize) > chunkEnd ||
			(i > 0 && (l.Offset <= locs[i-1].Offset || l.FirstRowIndex <= locs[i-1].FirstRowIndex)) || (i == 0 && l.FirstRowIndex != 0) {
			return whole, 0, nil
		}
		if l.FirstRowIndex <= start {
			first = i
		}
		if l.FirstRowIndex < end {
			last = i
		}
	}
	from := locs[first].Offset
	to := locs[last].Offset + int64(locs[last].CompressedPageSize)
	if head := locs[0].Offset - c.Start(); head > 0 && first > 0 {
		// the dictionary page (and anything else before the first data
		// page) is still needed
		ranges = append(ranges, ByteRange{c.Start(), head})
	} else if first == 0 {
		from = c.Start()
	}
	ranges = append(ranges, ByteRange{from, to - from})
	return ranges, locs[first].FirstRowIndex, nil
}

// ColumnIndex is a column chunk's per-page statistics, for pruning pages
// by predicate (then reading the surviving rows with ReadRequest.Ranges,
// their row numbers coming from the offset index). Values are in the
// column's PLAIN encoding, without length prefixes.
type ColumnIndex struct {
	NullPages            []bool
	MinValues, MaxValues [][]byte
	// BoundaryOrder: 0 unordered, 1 ascending, 2 descending.
	BoundaryOrder int32
	// NullCounts is nil when the writer stored none.
	NullCounts []int64
}

// ColumnIndex reads a column chunk's column index, or returns nil when the
// writer stored none.
func (f *File) ColumnIndex(c *ColumnChunk) (*ColumnIndex, error) {
	if c.ColumnIndexLength <= 0 {
		return nil, nil
	}
	if c.ColumnIndexOffset < 0 || c.ColumnIndexOffset > f.size || int64(c.ColumnIndexLength) > f.size-c.ColumnIndexOffset {
		return nil, fmt.Errorf("column index at [%d,+%d) lies outside the file", c.ColumnIndexOffset, c.ColumnIndexLength)
	}
	buf := make([]byte, c.ColumnIndexLength)
	if n, err := f.readAt(buf, c.ColumnIndexOffset); n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading column index: %w", err)
	}
	return ParseColumnIndex(buf)
}

func ParseColumnIndex(buf []byte) (*ColumnIndex, error) {
	r := &ThriftReader{Buf: buf}
	ci := &ColumnIndex{}
	binaries := func() ([][]byte, error) {
		_, n, err := r.listHeader()
		if err != nil {
			return nil, err
		}
		out := make([][]byte, 0, min(n, 1024))
		for range n {
			b, err := r.binary()
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	err := r.readStruct(func(id int16, typ byte) error {
		var err error
		switch {
		case id == 1 && typ == thriftList:
			var n int
			if _, n, err = r.listHeader(); err != nil {
				return err
			}
			ci.NullPages = make([]bool, 0, min(n, 1024))
			for range n {
				b, err := r.byte1()
				if err != nil {
					return err
				}
				ci.NullPages = append(ci.NullPages, b == thriftTrue)
			}
		case id == 2 && typ == thriftList:
			ci.MinValues, err = binaries()
		case id == 3 && typ == thriftList:
			ci.MaxValues, err = binaries()
		case id == 4 && expect(typ, thriftI32):
			ci.BoundaryOrder, err = r.i32()
		case id == 5 && typ == thriftList:
			var n int
			if _, n, err = r.listHeader(); err != nil {
				return err
			}
			ci.NullCounts = make([]int64, 0, min(n, 1024))
			for range n {
				v, err := r.i64()
				if err != nil {
					return err
				}
				ci.NullCounts = append(ci.NullCounts, v)
			}
		default:
			err = r.skip(typ)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("column index: %w", err)
	}
	if len(ci.MinValues) != len(ci.NullPages) || len(ci.MaxValues) != len(ci.NullPages) || ci.NullCounts != nil && len(ci.NullCounts) != len(ci.NullPages) {
		return nil, fmt.Errorf("column index lists disagree on the page count")
	}
	return ci, nil
}
