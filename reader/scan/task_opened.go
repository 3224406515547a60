package scan

import (
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
)

// openedFile is a task's data file opened, its footer read, ahead of the
// task's turn.
type openedFile struct {
	done    chan struct{}
	handle  fileio.File
	metered *meteredFile
	file    *parquet.File
	err     error
}

func (o *openedFile) close() {
	<-o.done
	if o.err == nil {
		o.file.Close()
		o.handle.Close()
	}
}
