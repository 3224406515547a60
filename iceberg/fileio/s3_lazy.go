package fileio

import (
	"context"
	"sync"
)

// lazyS3 is the S3 FileIO a Router holds before anyone needs it: the client
// is found (or made) in the process-wide cache on the first S3 operation. A
// failure to make it (a bad option, no credentials) is returned to that
// operation and tried again on the next, since it may have come from the
// caller's context rather than the configuration.
type lazyS3 struct {
	opts S3Options
	mu   sync.Mutex
	s3   *S3
}

func newLazyS3(opts *S3Options) *lazyS3 {
	l := &lazyS3{}
	if opts != nil {
		l.opts = *opts
	}
	return l
}

func (l *lazyS3) get(ctx context.Context) (*S3, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s3 != nil {
		return l.s3, nil
	}
	s, err := cachedS3(ctx, l.opts)
	if err != nil {
		return nil, err
	}
	l.s3 = s
	return s, nil
}

func (l *lazyS3) Open(ctx context.Context, path string) (File, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, path)
}

// OpenSized skips the HEAD request when the caller knows the size.
func (l *lazyS3) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.OpenSized(ctx, path, size)
}

func (l *lazyS3) ReadFile(ctx context.Context, path string) ([]byte, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ReadFile(ctx, path)
}

func (l *lazyS3) Stat(ctx context.Context, path string) (FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return FileInfo{}, err
	}
	return s.Stat(ctx, path)
}

func (l *lazyS3) Exists(ctx context.Context, path string) (bool, error) {
	s, err := l.get(ctx)
	if err != nil {
		return false, err
	}
	return s.Exists(ctx, path)
}

func (l *lazyS3) WriteFile(ctx context.Context, path string, data []byte) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.WriteFile(ctx, path, data)
}

func (l *lazyS3) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.WriteFileIfAbsent(ctx, path, data)
}

func (l *lazyS3) Create(ctx context.Context, path string) (Writer, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.Create(ctx, path)
}

func (l *lazyS3) Delete(ctx context.Context, path string) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.Delete(ctx, path)
}

func (l *lazyS3) List(ctx context.Context, dir string) ([]FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, dir)
}

func (l *lazyS3) ListDirs(ctx context.Context, dir string) ([]string, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ListDirs(ctx, dir)
}
