package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
)

// The first file found is read, in pyiceberg's order ($PYICEBERG_HOME,
// home, working directory), alone: the others' catalogs are not there.
func TestSearchOrder(t *testing.T) {
	pyhome, home, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir, name, uri string) {
		t.Helper()
		text := "catalog:\n  " + name + ":\n    uri: " + uri + "\n"
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	uriOf := func(env []string, name string) string {
		t.Helper()
		c, err := load(env, home, cwd)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Resolve(name, nil)
		if err != nil {
			return "error: " + err.Error()
		}
		return r.URI
	}
	withHome := []string{EnvHome + "=" + pyhome}
	// A directory of the file's name is not a file: the search goes on.
	if err := os.Mkdir(filepath.Join(pyhome, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	write(cwd, "c", "/from/cwd")
	if got := uriOf(withHome, "c"); got != "/from/cwd" {
		t.Errorf("only the working directory's file: %s", got)
	}
	write(home, "c", "/from/home")
	if got := uriOf(withHome, "c"); got != "/from/home" {
		t.Errorf("home before the working directory: %s", got)
	}
	if err := os.Remove(filepath.Join(pyhome, FileName)); err != nil {
		t.Fatal(err)
	}
	write(pyhome, "p", "/from/pyhome")
	if got := uriOf(nil, "c"); got != "/from/home" {
		t.Errorf("without $PYICEBERG_HOME: %s", got)
	}
	if got := uriOf(withHome, "p"); got != "/from/pyhome" {
		t.Errorf("$PYICEBERG_HOME first: %s", got)
	}
	c, _ := load(withHome, home, cwd)
	if c.File != filepath.Join(pyhome, FileName) || len(c.Searched) != 1 {
		t.Errorf("file %s, searched %v", c.File, c.Searched)
	}
	if _, err := c.Resolve("c", nil); err == nil {
		t.Errorf("a catalog of a file not read was found")
	}
}

// Nested aliases that would expand to 10^9 values ("billion laughs") are
// refused as malformed, quickly, instead of exhausting memory.
func TestAliasExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	start := time.Now()
	_, err := parseYAML([]byte(b.String()))
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a billion laughs: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refused after %v", d)
	}
	small := "catalog:\n  default: &d\n    uri: sqlite:///x.db\n  other: *d\n"
	if _, err := parseYAML([]byte(small)); err != nil {
		t.Fatalf("a real alias: %v", err)
	}
}
