package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// FuzzConfigFile reads arbitrary bytes as a .pyiceberg.yaml and resolves
// its default catalog and one named "prod": never a panic or a hang, every
// refusal of a kind (never a bare error), and, once the file has parsed,
// no value of it in a resolution's message. (A malformed file's message
// may quote the YAML library's token, such as an unknown anchor's name.)
func FuzzConfigFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "pyiceberg-config", "malformed", "*.yaml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("catalog:\n  default:\n    uri: sqlite:///x.db\n    credential: id:s3cr3tvalue\n"))
	f.Add([]byte("default-catalog: prod\ncatalog:\n  prod: &p\n    type: rest\n    uri: http://127.0.0.1:8181\n    token: s3cr3tvalue\n  other: *p\n"))
	f.Add([]byte("catalog:\n  default:\n    s3:\n      endpoint: http://x\n      secret-access-key: s3cr3tvalue\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := load(nil, dir, "")
		if err != nil {
			checkRefusal(t, err, nil)
			return
		}
		for _, name := range []string{"", "prod"} {
			if _, err := c.Resolve(name, nil); err != nil {
				checkRefusal(t, err, data)
			}
		}
	})
}

func checkRefusal(t *testing.T, err error, data []byte) {
	t.Helper()
	if !errors.Is(err, errkind.InvalidArgument) && !errors.Is(err, errkind.NotFound) && !errors.Is(err, errkind.Unsupported) {
		t.Fatalf("an error of no kind: %v", err)
	}
	if strings.Contains(string(data), "s3cr3tvalue") && strings.Contains(err.Error(), "s3cr3tvalue") {
		t.Fatalf("a value in a message: %v", err)
	}
}
