package fileio

import (
	"context"
	"sync"
)

// lazyAzure is the Azure FileIO a Router holds before anyone needs it, as
// lazyS3 is S3's: the FileIO is found (or made) in the process-wide cache
// on the first Azure operation, so tables on other storage never pay for
// it or fail on a bad Azure configuration. A failure is returned to that
// operation and tried again on the next.
type lazyAzure struct {
	opts AzureOptions
	mu   sync.Mutex
	az   *Azure
}

func newLazyAzure(opts *AzureOptions) *lazyAzure {
	l := &lazyAzure{}
	if opts != nil {
		l.opts = *opts
	}
	return l
}

func (l *lazyAzure) get(ctx context.Context) (*Azure, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.az != nil {
		return l.az, nil
	}
	s, err := cachedAzure(ctx, l.opts)
	if err != nil {
		return nil, err
	}
	l.az = s
	return s, nil
}

func (l *lazyAzure) Open(ctx context.Context, path string) (File, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, path)
}

// OpenSized skips the properties request when the caller knows the size.
func (l *lazyAzure) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.OpenSized(ctx, path, size)
}

func (l *lazyAzure) ReadFile(ctx context.Context, path string) ([]byte, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ReadFile(ctx, path)
}

func (l *lazyAzure) Stat(ctx context.Context, path string) (FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return FileInfo{}, err
	}
	return s.Stat(ctx, path)
}

func (l *lazyAzure) Exists(ctx context.Context, path string) (bool, error) {
	s, err := l.get(ctx)
	if err != nil {
		return false, err
	}
	return s.Exists(ctx, path)
}

func (l *lazyAzure) WriteFile(ctx context.Context, path string, data []byte) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.WriteFile(ctx, path, data)
}

func (l *lazyAzure) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.WriteFileIfAbsent(ctx, path, data)
}

func (l *lazyAzure) Create(ctx context.Context, path string) (Writer, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.Create(ctx, path)
}

func (l *lazyAzure) Delete(ctx context.Context, path string) error {
	s, err := l.get(ctx)
	if err != nil {
		return err
	}
	return s.Delete(ctx, path)
}

func (l *lazyAzure) List(ctx context.Context, dir string) ([]FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, dir)
}

func (l *lazyAzure) ListDirs(ctx context.Context, dir string) ([]string, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ListDirs(ctx, dir)
}

func (l *lazyAzure) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ReadFileLimited(ctx, path, limit)
}

func (l *lazyAzure) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ListTree(ctx, dir)
}
