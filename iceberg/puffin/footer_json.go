package puffin

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// The footer JSON is written by hand, in the shape Java's FileMetadataParser
// gives it through Jackson (compact, fields in the same order, the same
// string escapes), so that files match the reference writer byte for byte.

// leadingBlobPropertyKeys are written first, in the order Java's DV writer
// puts them; other keys follow sorted, as Go maps have no order.
var leadingBlobPropertyKeys = []string{PropertyReferencedDataFile, PropertyCardinality}

func appendFooterJSON(dst []byte, blobs []BlobMetadata, properties map[string]string) []byte {
	dst = append(dst, `{"blobs":[`...)
	for i := range blobs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendBlobJSON(dst, &blobs[i])
	}
	dst = append(dst, ']')
	if len(properties) > 0 {
		dst = append(dst, `,"properties":`...)
		dst = appendStringMap(dst, properties, nil)
	}
	return append(dst, '}')
}

func appendBlobJSON(dst []byte, b *BlobMetadata) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, b.Type)
	dst = append(dst, `,"fields":[`...)
	for i, f := range b.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(f), 10)
	}
	dst = append(dst, `],"snapshot-id":`...)
	dst = strconv.AppendInt(dst, b.SnapshotID, 10)
	dst = append(dst, `,"sequence-number":`...)
	dst = strconv.AppendInt(dst, b.SequenceNumber, 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, b.Offset, 10)
	dst = append(dst, `,"length":`...)
	dst = strconv.AppendInt(dst, b.Length, 10)
	if b.CompressionCodec != CodecNone {
		dst = append(dst, `,"compression-codec":`...)
		dst = appendJSONString(dst, b.CompressionCodec)
	}
	if len(b.Properties) > 0 {
		dst = append(dst, `,"properties":`...)
		dst = appendStringMap(dst, b.Properties, leadingBlobPropertyKeys)
	}
	return append(dst, '}')
}

func appendStringMap(dst []byte, m map[string]string, leading []string) []byte {
	keys := make([]string, 0, len(m))
	for _, k := range leading {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	firstSorted := len(keys)
	for k := range m {
		if !slices.Contains(leading, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[firstSorted:])
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = appendJSONString(dst, m[k])
	}
	return append(dst, '}')
}

// appendJSONString escapes as Jackson does by default: '"', '\\' and the
// control characters below 0x20 (short forms where JSON has them, else
// \u00XX in upper case); everything else, non-ASCII included, is written as
// UTF-8. Invalid UTF-8 becomes U+FFFD, as a Java string could not hold it.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				dst = append(dst, c)
			}
		}
		i++
	}
	return append(dst, '"')
}
