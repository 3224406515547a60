package writer

import (
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
)

// DataLocation is where a table's data files go: write.data.path, or the
// legacy write.folder-storage.path, else <location>/data. Every writer of
// a table's files (package ops, floe_write_files) places them here.
func DataLocation(md *metadata.Metadata) string {
	for _, key := range []string{"write.data.path", "write.folder-storage.path"} {
		if p := md.Properties[key]; p != "" {
			return p
		}
	}
	return fileio.JoinPath(md.Location, "data")
}
