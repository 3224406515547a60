package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// fixtureDir holds the .pyiceberg.yaml and cases.json that the Python
// tests (bindings/python/tests/test_config.py) check too: both languages
// must resolve every case alike.
var fixtureDir = filepath.Join("..", "..", "testdata", "pyiceberg-config")

type fixtureCase struct {
	What     string            `json:"what"`
	Name     string            `json:"name"`
	Env      map[string]string `json:"env"`
	Explicit map[string]string `json:"explicit"`
	Want     struct {
		Error string            `json:"error"`
		Name  string            `json:"name"`
		Type  string            `json:"type"`
		URI   string            `json:"uri"`
		Props map[string]string `json:"props"`
	} `json:"want"`
}

func readCases(t *testing.T) (cases []fixtureCase, secrets []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Secrets []string      `json:"secrets"`
		Cases   []fixtureCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases, f.Secrets
}

// kindName is the Python Status name of an error's kind.
func kindName(err error) string {
	switch errkind.Of(err) {
	case errkind.NotFound:
		return "NOT_FOUND"
	case errkind.InvalidArgument:
		return "INVALID_ARGUMENT"
	case errkind.Unsupported:
		return "UNSUPPORTED"
	}
	return "kind " + errkind.Of(err).Error()
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func TestFixtureCases(t *testing.T) {
	cases, secrets := readCases(t)
	home, cwd := t.TempDir(), t.TempDir()
	for _, c := range cases {
		env := append(envList(c.Env), EnvHome+"="+fixtureDir, "UNRELATED=1")
		got, err := func() (*Catalog, error) {
			cfg, err := load(env, home, cwd)
			if err != nil {
				return nil, err
			}
			return cfg.Resolve(c.Name, c.Explicit)
		}()
		if c.Want.Error != "" {
			if err == nil || kindName(err) != c.Want.Error {
				t.Errorf("%s: got %+v, %v; want %s", c.What, got, err, c.Want.Error)
			}
			for _, s := range secrets {
				if err != nil && strings.Contains(err.Error(), s) {
					t.Errorf("%s: message shows a secret: %v", c.What, err)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.What, err)
			continue
		}
		want := &Catalog{Name: c.Want.Name, Type: c.Want.Type, URI: c.Want.URI, Props: c.Want.Props}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.What, got, want)
		}
	}
}

// Every malformed file is refused as InvalidArgument (or Unsupported),
// naming the file and showing none of its values.
func TestMalformedFiles(t *testing.T) {
	_, secrets := readCases(t)
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "malformed", "*.yaml"))
	if len(files) < 5 {
		t.Fatalf("malformed fixtures: %v", files)
	}
	for _, f := range files {
		dir := t.TempDir()
		data, _ := os.ReadFile(f)
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := load([]string{EnvHome + "=" + dir}, t.TempDir(), t.TempDir())
		if err == nil || !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: message shows a secret: %v", filepath.Base(f), err)
			}
		}
		t.Logf("%s: %v", filepath.Base(f), err)
	}
}
