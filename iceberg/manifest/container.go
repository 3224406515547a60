package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/floedb/floe/errkind"
	"github.com/twmb/avro/ocf"
)

// Reading walks the Avro object container itself and decodes records with
// a decoder compiled from the file's schema (see plan.go): decoding through
// the Avro library's reflection and schema resolution cost ~70 µs per
// manifest entry and milliseconds of schema work per file, too slow for
// planning scans over thousands of manifests. The library still parses
// and validates the schema and supplies the block codecs.

var ocfMagic = []byte("Obj\x01")

const (
	// maxBlockBytes bounds one decompressed block (as the Avro library's
	// reader does by default) so a hostile file cannot exhaust memory.
	maxBlockBytes = 64 << 20
	// maxHeaderEntries bounds the header's key/value map.
	maxHeaderEntries = 1 << 12
)

// container is an Avro object container file split into header and blocks.
type container struct {
	meta   map[string][]byte
	sync   []byte
	blocks []byte // everything after the header
	codec  ocf.BoundedDecompressor
}

func parseContainer(data []byte) (*container, error) {
	if !bytes.HasPrefix(data, ocfMagic) {
		return nil, errors.New("not an Avro object container file (bad magic)")
	}
	r := &reader{buf: data[len(ocfMagic):]}
	meta := map[string][]byte{}
	for {
		n, err := r.blockCount()
		if err != nil {
			return nil, fmt.Errorf("Avro header: %w", err)
		}
		if n == 0 {
			break
		}
		if n+int64(len(meta)) > maxHeaderEntries {
			return nil, errors.New("Avro header has too many entries")
		}
		for range n {
			k, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("Avro header: %w", err)
			}
			v, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("Avro header: %w", err)
			}
			meta[string(k)] = bytes.Clone(v)
		}
	}
	sync, err := r.fixed(16)
	if err != nil {
		return nil, fmt.Errorf("Avro header sync marker: %w", err)
	}
	c := &container{meta: meta, sync: sync, blocks: r.rest()}
	if c.codec, err = codecNamed(string(meta["avro.codec"])); err != nil {
		return nil, err
	}
	if _, ok := meta["avro.schema"]; !ok {
		return nil, errors.New("Avro header has no schema")
	}
	return c, nil
}

// forEachBlock calls fn with each decompressed block and its record count.
func (c *container) forEachBlock(fn func(count int, block []byte) error) error {
	return c.forEachBlockIn(nil, fn)
}

// forEachBlockIn is forEachBlock decompressing deflate blocks into
// *scratch, reused from block to block (and left there, grown, for the
// caller to reuse again), when scratch is not nil: fn must then keep
// nothing that points into the block. Planning a million files spent a
// tenth of its CPU growing and cloning fresh block buffers.
func (c *container) forEachBlockIn(scratch *[]byte, fn func(count int, block []byte) error) error {
	r := &reader{buf: c.blocks}
	for r.left() > 0 {
		count, err := r.long()
		if err != nil {
			return fmt.Errorf("Avro block header: %w", err)
		}
		size, err := r.long()
		if err != nil {
			return fmt.Errorf("Avro block header: %w", err)
		}
		if count < 0 || size < 0 || size > int64(r.left()) {
			return fmt.Errorf("corrupt Avro block header (count %d, size %d, %d bytes left)", count, size, r.left())
		}
		compressed, _ := r.fixed(int(size))
		sync, err := r.fixed(16)
		if err != nil || !bytes.Equal(sync, c.sync) {
			return errors.New("Avro block is not followed by the file's sync marker")
		}
		var block []byte
		if d, ok := c.codec.(deflateReader); ok && scratch != nil {
			block, err = d.decompressInto(*scratch, compressed, maxBlockBytes)
			if err == nil {
				*scratch = block
			}
		} else {
			block, err = c.codec.DecompressBounded(compressed, maxBlockBytes)
		}
		if err != nil {
			return fmt.Errorf("decompressing an Avro block: %w", err)
		}
		if _, uncompressed := c.codec.(nullCodec); uncompressed {
			// Decoded byte slices point into the block: never into the
			// caller's buffer, which they may reuse.
			block = bytes.Clone(block)
		}
		// Every manifest record takes at least one byte.
		if count > int64(len(block)) {
			return fmt.Errorf("Avro block claims %d records in %d bytes", count, len(block))
		}
		if err := fn(int(count), block); err != nil {
			return err
		}
	}
	return nil
}

// headerInt reads an optional integer of the Iceberg key/value header;
// files rewritten by avro-tools lack the header.
func (c *container) headerInt(key string) (int64, bool, error) {
	raw, ok := c.meta[key]
	if !ok || string(raw) == "null" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("header %s=%q is not an integer", key, raw)
	}
	return n, true, nil
}

var (
	zstdOnce  sync.Once
	zstdCodec ocf.Codec
	zstdErr   error
)

func codecNamed(name string) (ocf.BoundedDecompressor, error) {
	var c ocf.Codec
	switch name {
	case "", "null":
		return nullCodec{}, nil
	case "deflate":
		return deflateReader{}, nil
	case "snappy":
		c = ocf.SnappyCodec()
	case "zstandard":
		// One shared decoder: building one per file is expensive.
		zstdOnce.Do(func() { zstdCodec, zstdErr = ocf.ZstdCodec(nil, nil) })
		if zstdErr != nil {
			return nil, zstdErr
		}
		c = zstdCodec
	default:
		return nil, errkind.Errorf(errkind.Unsupported, "unsupported Avro codec %q", name)
	}
	b, ok := c.(ocf.BoundedDecompressor)
	if !ok {
		return nil, fmt.Errorf("Avro codec %q cannot bound its output", name)
	}
	return b, nil
}

type nullCodec struct{}

func (nullCodec) DecompressBounded(src []byte, max int64) ([]byte, error) {
	if int64(len(src)) > max {
		return nil, fmt.Errorf("Avro block of %d bytes is over the %d byte limit", len(src), max)
	}
	return src, nil
}

// errPanic marks a panic recovered at the package boundary.
var errPanic = errors.New("internal error while decoding Avro")

// guard turns a panic (say inside the Avro library's schema parser) into an
// error, so hostile input can never crash the host. The decoders check
// their input on their own; this is the last line.
// corruptUnlessKinded marks a decoding failure as errkind.Corrupt, unless
// it already has a kind (an unsupported codec or format version). The
// readers take bytes, so no storage error reaches here.
func corruptUnlessKinded(err *error) {
	*err = errkind.Default(errkind.Corrupt, *err)
}

func guard(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: %v", errPanic, p)
	}
}
