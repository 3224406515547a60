package reader

import (
	"github.com/floedb/floe/iceberg/fileio"
)

// openedFile is a task's data file opened, its footer read, ahead of the
// task's turn.
type openedFile struct {
	done    chan struct{}
	handle  fileio.File
	metered *meteredFile
	file    *File
	err     error
}

func (o *openedFile) close() {
	<-o.done
	if o.err == nil {
		o.file.Close()
		o.handle.Close()
	}
}
