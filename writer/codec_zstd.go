package writer

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// zstdCodec is parquet-go's ZSTD codec but for one encoder option: the
// literals of a block in which no match is found are entropy-coded too.
// klauspost's encoder leaves them raw at its fastest and default levels,
// so a page of bit-packed dictionary indexes came out a few bytes larger
// than it went in: on the write section's rows (benchmarks, -writes,
// 600 000 rows) every dictionary-encoded column's compressed size was its
// uncompressed size, where DuckDB's zstd (level 3) takes 13–20 % off the
// same kind of pages (l_discount 303 KB → 263 KB, l_returnflag 153 KB →
// 123 KB). Decoding is parquet-go's.
//
// defaultZstdLevel is the encoder level when write.parquet.compression-level
// is unset: klauspost's fastest, not its default. Measured on the pages the
// writer cuts (2026-12-07, every page of 1 M rows of the maintenance
// benchmark's table and 1 M rows of the writer benchmark's benchSchema, each
// page encoded alone as the writer does): SpeedFastest encoded 1.6× as many
// MB per CPU second (234 vs 143 MB/s; 229 vs 139) and wrote smaller pages
// (25.8 % vs 27.1 % of the raw bytes; 39.7 % vs 40.3 %), smaller too than
// libzstd's level 3 (27.3 %), the level Java and DuckDB write by default.
// On the maintenance benchmark it took compaction from 0.96× to ≥ 1.0× of
// DuckDB's MB/s per core (issue 30), zstd being half of compaction's CPU.
// Window size and WithLowerEncoderMem changed neither speed nor size there.
// An explicit level keeps zstd's meaning (3 is SpeedDefault).
const defaultZstdLevel = zstd.SpeedFastest

type zstdCodec struct {
	pqzstd.Codec
	level    zstd.EncoderLevel
	encoders sync.Pool // *zstd.Encoder, one per concurrent Encode
}

// zstdCodecs are the codecs by level, shared by every writer: an encoder
// costs a few hundred KB to set up, and small files (an upsert's position
// deletes, one per data file it touched) each paid that when every writer
// had a pool of its own.
var zstdCodecs sync.Map // zstd.EncoderLevel → *zstdCodec

func newZstdCodec(level zstd.EncoderLevel) *zstdCodec {
	if c, ok := zstdCodecs.Load(level); ok {
		return c.(*zstdCodec)
	}
	c, _ := zstdCodecs.LoadOrStore(level, &zstdCodec{level: level})
	return c.(*zstdCodec)
}

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(c.level),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
			zstd.WithAllLitEntropyCompression(true),
		)
		if err != nil {
			return dst[:0], err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}
