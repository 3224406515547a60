package fileio

import (
	"context"
	"sync"
)

// sharedGCSClients is the process-wide cache of GCS clients. The
// environment Google's libraries read (STORAGE_EMULATOR_HOST,
// GOOGLE_APPLICATION_CREDENTIALS, GOOGLE_CLOUD_PROJECT, …) is part of the
// key because it fills in what the options leave unset. A shared client's
// Requests and BytesRead count the traffic of every table using it; a
// caller that needs its own counts makes its own with NewGCS.
var sharedGCSClients = newClientCache(NewGCS)

func gcsEnvironment() string {
	return environmentWith("STORAGE_EMULATOR_HOST=", "GOOGLE_", "CLOUDSDK_", "GCE_METADATA_")
}

// lazyGCS is the GCS FileIO a Router holds before anyone needs it: the
// client is found (or made) in the shared cache on the first gs://
// operation, so tables elsewhere never pay for it or fail on a bad GCS
// configuration. A failure to make it is returned to that operation and
// tried again on the next.
type lazyGCS struct {
	opts GCSOptions
	mu   sync.Mutex
	gcs  *GCS
}

func newLazyGCS(opts *GCSOptions) *lazyGCS {
	l := &lazyGCS{}
	if opts != nil {
		l.opts = *opts
	}
	return l
}

func (l *lazyGCS) get(ctx context.Context) (*GCS, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gcs != nil {
		return l.gcs, nil
	}
	g, err := sharedGCSClients.get(ctx, l.opts, gcsEnvironment())
	if err != nil {
		return nil, err
	}
	l.gcs = g
	return g, nil
}

func (l *lazyGCS) Open(ctx context.Context, path string) (File, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.Open(ctx, path)
}

// OpenSized skips the metadata request when the caller knows the size.
func (l *lazyGCS) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.OpenSized(ctx, path, size)
}

func (l *lazyGCS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.ReadFile(ctx, path)
}

func (l *lazyGCS) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.ReadFileLimited(ctx, path, limit)
}

func (l *lazyGCS) Stat(ctx context.Context, path string) (FileInfo, error) {
	g, err := l.get(ctx)
	if err != nil {
		return FileInfo{}, err
	}
	return g.Stat(ctx, path)
}

func (l *lazyGCS) Exists(ctx context.Context, path string) (bool, error) {
	g, err := l.get(ctx)
	if err != nil {
		return false, err
	}
	return g.Exists(ctx, path)
}

func (l *lazyGCS) WriteFile(ctx context.Context, path string, data []byte) error {
	g, err := l.get(ctx)
	if err != nil {
		return err
	}
	return g.WriteFile(ctx, path, data)
}

func (l *lazyGCS) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	g, err := l.get(ctx)
	if err != nil {
		return err
	}
	return g.WriteFileIfAbsent(ctx, path, data)
}

func (l *lazyGCS) Create(ctx context.Context, path string) (Writer, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.Create(ctx, path)
}

func (l *lazyGCS) Delete(ctx context.Context, path string) error {
	g, err := l.get(ctx)
	if err != nil {
		return err
	}
	return g.Delete(ctx, path)
}

func (l *lazyGCS) List(ctx context.Context, dir string) ([]FileInfo, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.List(ctx, dir)
}

func (l *lazyGCS) ListDirs(ctx context.Context, dir string) ([]string, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.ListDirs(ctx, dir)
}

func (l *lazyGCS) ListTree(ctx context.Context, dir string) ([]FileInfo, error) {
	g, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return g.ListTree(ctx, dir)
}
