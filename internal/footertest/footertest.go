// Package footertest rewrites the footer of a real Parquet file, for tests
// of what a reader does with a damaged one: the file's bytes are kept, its
// Thrift FileMetaData decoded (parquet-go's compact protocol), edited and
// written back in place of the old footer.
package footertest

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Rewrite returns data with its footer replaced by edit's change of it.
// Data pages stay where they were: only the footer moves, and chunk
// offsets point before it.
func Rewrite(data []byte, edit func(md *format.FileMetaData)) ([]byte, error) {
	n := len(data)
	if n < 12 || !bytes.Equal(data[n-4:], []byte("PAR1")) {
		return nil, fmt.Errorf("footertest: not a Parquet file")
	}
	footerLen := int(binary.LittleEndian.Uint32(data[n-8 : n-4]))
	if footerLen > n-12 {
		return nil, fmt.Errorf("footertest: footer length %d in a file of %d bytes", footerLen, n)
	}
	start := n - 8 - footerLen
	var md format.FileMetaData
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, data[start:n-8], &md); err != nil {
		return nil, fmt.Errorf("footertest: decoding the footer: %w", err)
	}
	edit(&md)
	footer, err := thrift.Marshal(&thrift.CompactProtocol{}, &md)
	if err != nil {
		return nil, fmt.Errorf("footertest: encoding the footer: %w", err)
	}
	out := append([]byte(nil), data[:start]...)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...), nil
}
