package fileio

import (
	"context"
	"strings"
)

// Router is a FileIO that hands each path to the FileIO registered for its
// scheme. Plain paths and file: URIs go to Local.
type Router struct {
	schemes map[string]FileIO
}

// NewRouter returns a Router that knows local files only.
func NewRouter() *Router {
	return &Router{schemes: map[string]FileIO{"": Local{}, "file": Local{}}}
}

// Register routes a scheme ("s3") to files. Register before use; it is not
// safe to call while other goroutines use the Router.
func (r *Router) Register(scheme string, files FileIO) {
	r.schemes[strings.ToLower(scheme)] = files
}

// Resolve returns the FileIO for path's scheme, or an error wrapping
// ErrUnsupportedScheme that points at the location map.
func (r *Router) Resolve(path string) (FileIO, error) {
	if files, ok := r.schemes[Scheme(path)]; ok {
		return files, nil
	}
	return nil, unsupportedScheme(path)
}

// Options configure ForLocation.
type Options struct {
	// LocationMap is applied to every path before its scheme is looked at.
	LocationMap LocationMap
	// S3 configures s3:// and s3a:// locations; nil means the AWS_*
	// environment alone. The client is made on first use, so tables on
	// other storage never pay for it or fail on a bad S3 configuration.
	S3 *S3Options `json:"s3,omitempty"`
	// GCS configures gs:// locations; nil means the environment alone
	// (STORAGE_EMULATOR_HOST, application default credentials). Made on
	// first use, as S3's client is.
	GCS *GCSOptions `json:"gcs,omitempty"`
	// Azure configures abfs://, abfss://, wasb:// and wasbs:// locations;
	// nil means the AZURE_STORAGE_* environment alone. Made on first use.
	Azure *AzureOptions `json:"azure,omitempty"`
}

// ForLocation returns the FileIO for a table at location: a Router behind
// the options' location map. It fails early, with the location-map hint, when
// the table's own location cannot be served.
func ForLocation(location string, opts Options) (FileIO, error) {
	r := NewRouter()
	s3 := newLazyS3(opts.S3)
	r.Register("s3", s3)
	r.Register("s3a", s3)
	r.Register("gs", newLazyGCS(opts.GCS))
	azure := newLazyAzure(opts.Azure)
	for _, scheme := range []string{"abfs", "abfss", "wasb", "wasbs"} {
		r.Register(scheme, azure)
	}
	if _, err := r.Resolve(opts.LocationMap.Apply(location)); err != nil {
		return nil, err
	}
	return NewRemapping(r, opts.LocationMap), nil
}

func (r *Router) Open(ctx context.Context, path string) (File, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	return files.Open(ctx, path)
}

func (r *Router) ReadFile(ctx context.Context, path string) ([]byte, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	return files.ReadFile(ctx, path)
}

func (r *Router) Stat(ctx context.Context, path string) (FileInfo, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return FileInfo{}, err
	}
	return files.Stat(ctx, path)
}

func (r *Router) Exists(ctx context.Context, path string) (bool, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return false, err
	}
	return files.Exists(ctx, path)
}

func (r *Router) WriteFile(ctx context.Context, path string, data []byte) error {
	files, err := r.Resolve(path)
	if err != nil {
		return err
	}
	return files.WriteFile(ctx, path, data)
}

func (r *Router) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	files, err := r.Resolve(path)
	if err != nil {
		return err
	}
	return files.WriteFileIfAbsent(ctx, path, data)
}

func (r *Router) Create(ctx context.Context, path string) (Writer, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	return files.Create(ctx, path)
}

func (r *Router) Delete(ctx context.Context, path string) error {
	files, err := r.Resolve(path)
	if err != nil {
		return err
	}
	return files.Delete(ctx, path)
}

func (r *Router) List(ctx context.Context, dir string) ([]FileInfo, error) {
	files, err := r.Resolve(dir)
	if err != nil {
		return nil, err
	}
	return files.List(ctx, dir)
}
