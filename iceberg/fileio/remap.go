package fileio

import "context"

// Remapper is implemented by FileIOs that rewrite locations before use.
type Remapper interface {
	Remap(path string) string
}

// Remap returns the location files will actually use for path. Planners use
// it to compare paths that different writers spelled differently, such as a
// data file named by a manifest and by a position delete file.
func Remap(files FileIO, path string) string {
	if r, ok := files.(Remapper); ok {
		return r.Remap(path)
	}
	return path
}

// Remapping is a FileIO that applies a LocationMap to every path before
// passing it on. Paths it returns (from List and Stat) keep the caller's
// spelling.
type Remapping struct {
	inner FileIO
	m     LocationMap
}

// NewRemapping wraps inner so that every path goes through m. An empty map
// returns inner itself.
func NewRemapping(inner FileIO, m LocationMap) FileIO {
	if m.Len() == 0 {
		return inner
	}
	return &Remapping{inner: inner, m: m}
}

// Remap applies the map.
func (r *Remapping) Remap(path string) string { return r.m.Apply(path) }

// Map is the map being applied.
func (r *Remapping) Map() LocationMap { return r.m }

func (r *Remapping) Open(ctx context.Context, path string) (File, error) {
	return r.inner.Open(ctx, r.m.Apply(path))
}

func (r *Remapping) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return r.inner.ReadFile(ctx, r.m.Apply(path))
}

func (r *Remapping) Stat(ctx context.Context, path string) (FileInfo, error) {
	info, err := r.inner.Stat(ctx, r.m.Apply(path))
	if err != nil {
		return FileInfo{}, err
	}
	info.Path = path
	return info, nil
}

func (r *Remapping) Exists(ctx context.Context, path string) (bool, error) {
	return r.inner.Exists(ctx, r.m.Apply(path))
}

func (r *Remapping) WriteFile(ctx context.Context, path string, data []byte) error {
	return r.inner.WriteFile(ctx, r.m.Apply(path), data)
}

func (r *Remapping) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	return r.inner.WriteFileIfAbsent(ctx, r.m.Apply(path), data)
}

func (r *Remapping) Create(ctx context.Context, path string) (Writer, error) {
	return r.inner.Create(ctx, r.m.Apply(path))
}

func (r *Remapping) Delete(ctx context.Context, path string) error {
	return r.inner.Delete(ctx, r.m.Apply(path))
}

// List lists the remapped directory and names the files under the caller's
// dir again.
func (r *Remapping) List(ctx context.Context, dir string) ([]FileInfo, error) {
	infos, err := r.inner.List(ctx, r.m.Apply(dir))
	if err != nil {
		return nil, err
	}
	for i := range infos {
		infos[i].Path = JoinPath(dir, baseName(infos[i].Path))
	}
	return infos, nil
}
