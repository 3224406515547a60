package parquet

import "fmt"

type pageType int32

const (
	PageData       pageType = 0
	pageIndex      pageType = 1
	PageDictionary pageType = 2
	PageDataV2     pageType = 3
)

// PageHeader holds the PageHeader fields the decoder uses; statistics are
// skipped.
type PageHeader struct {
	Typ              pageType
	UncompressedSize int32
	CompressedSize   int32
	crc              uint32
	hasCRC           bool

	NumValues int32
	Encoding  Encoding
	// v1 only
	defEncoding, repEncoding Encoding
	// v2 only
	numNulls, numRows                         int32
	defLength, repLength                      int32
	isCompressed                              bool
	hasDataHeader, hasDictHeader, hasV2Header bool
}

func ParsePageHeader(r *ThriftReader, h *PageHeader) error {
	*h = PageHeader{Typ: -1, isCompressed: true}
	err := r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && expect(typ, thriftI32):
			v, err = r.i32()
			h.Typ = pageType(v)
		case id == 2 && expect(typ, thriftI32):
			h.UncompressedSize, err = r.i32()
		case id == 3 && expect(typ, thriftI32):
			h.CompressedSize, err = r.i32()
		case id == 4 && expect(typ, thriftI32):
			v, err = r.i32()
			h.crc, h.hasCRC = uint32(v), true
		case id == 5 && expect(typ, thriftStruct):
			h.hasDataHeader = true
			err = parseDataPageHeader(r, h)
		case id == 7 && expect(typ, thriftStruct):
			h.hasDictHeader = true
			err = parseDictionaryPageHeader(r, h)
		case id == 8 && expect(typ, thriftStruct):
			h.hasV2Header = true
			err = parseDataPageHeaderV2(r, h)
		default:
			err = r.skip(typ)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("page header: %w", err)
	}
	if h.CompressedSize < 0 || h.UncompressedSize < 0 || h.NumValues < 0 {
		return fmt.Errorf("page header: negative sizes (compressed %d, uncompressed %d, values %d)", h.CompressedSize, h.UncompressedSize, h.NumValues)
	}
	return nil
}

func parseDataPageHeader(r *ThriftReader, h *PageHeader) error {
	return r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && expect(typ, thriftI32):
			h.NumValues, err = r.i32()
		case id == 2 && expect(typ, thriftI32):
			v, err = r.i32()
			h.Encoding = Encoding(v)
		case id == 3 && expect(typ, thriftI32):
			v, err = r.i32()
			h.defEncoding = Encoding(v)
		case id == 4 && expect(typ, thriftI32):
			v, err = r.i32()
			h.repEncoding = Encoding(v)
		default:
			err = r.skip(typ)
		}
		return err
	})
}

func parseDictionaryPageHeader(r *ThriftReader, h *PageHeader) error {
	return r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && expect(typ, thriftI32):
			h.NumValues, err = r.i32()
		case id == 2 && expect(typ, thriftI32):
			v, err = r.i32()
			h.Encoding = Encoding(v)
		default:
			err = r.skip(typ)
		}
		return err
	})
}

func parseDataPageHeaderV2(r *ThriftReader, h *PageHeader) error {
	err := r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && expect(typ, thriftI32):
			h.NumValues, err = r.i32()
		case id == 2 && expect(typ, thriftI32):
			h.numNulls, err = r.i32()
		case id == 3 && expect(typ, thriftI32):
			h.numRows, err = r.i32()
		case id == 4 && expect(typ, thriftI32):
			v, err = r.i32()
			h.Encoding = Encoding(v)
		case id == 5 && expect(typ, thriftI32):
			h.defLength, err = r.i32()
		case id == 6 && expect(typ, thriftI32):
			h.repLength, err = r.i32()
		case id == 7 && expect(typ, thriftTrue):
			h.isCompressed = boolField(typ)
		default:
			err = r.skip(typ)
		}
		return err
	})
	if err == nil && (h.defLength < 0 || h.repLength < 0 || h.numNulls < 0 || h.numRows < 0) {
		err = fmt.Errorf("data page v2 header has negative counts")
	}
	return err
}
