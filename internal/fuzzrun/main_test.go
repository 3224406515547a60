package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLastStatus(t *testing.T) {
	log := `fuzz: elapsed: 0s, gathering baseline coverage: 0/83 completed
fuzz: elapsed: 1s, gathering baseline coverage: 83/83 completed, now fuzzing with 2 workers
fuzz: elapsed: 3s, execs: 9345 (3113/sec), new interesting: 19 (total: 104)
fuzz: elapsed: 8s, execs: 28355 (3665/sec), new interesting: 55 (total: 140)
PASS
`
	execs, interesting, elapsed := lastStatus(log, time.Minute)
	if execs != 28355 || interesting != 55 || elapsed != 8*time.Second {
		t.Fatalf("got %d execs, %d new, %v", execs, interesting, elapsed)
	}
	// No status line: nothing ran, and the wall time stands.
	if execs, _, elapsed := lastStatus("FAIL\n", time.Minute); execs != 0 || elapsed != time.Minute {
		t.Fatalf("got %d execs, %v", execs, elapsed)
	}
}

// Every Fuzz function of the module is found, in its package.
// Past a minute Go prints the elapsed time as a duration ("1m3s",
// "1h0m2s"); a run that slow must still count its inputs (it was read as
// zero, failing FuzzCatalogProperties on a loaded CI machine).
func TestLastStatusLongRuns(t *testing.T) {
	for _, c := range []struct {
		log     string
		execs   int64
		elapsed time.Duration
	}{
		{"fuzz: elapsed: 59s, execs: 9000 (152/sec), new interesting: 1 (total: 9)\n" +
			"fuzz: elapsed: 1m3s, execs: 10000 (158/sec), new interesting: 2 (total: 10)\nPASS\n", 10000, 63 * time.Second},
		{"fuzz: elapsed: 1h0m2s, execs: 123456 (34/sec), new interesting: 0 (total: 7)\n", 123456, time.Hour + 2*time.Second},
		{"fuzz: elapsed: 2m0s, execs: 77 (0/sec), new interesting: 0 (total: 3)\n", 77, 2 * time.Minute},
	} {
		execs, _, elapsed := lastStatus(c.log, time.Second)
		if execs != c.execs || elapsed != c.elapsed {
			t.Errorf("%q: got %d execs in %v, want %d in %v", c.log, execs, elapsed, c.execs, c.elapsed)
		}
	}
}

func TestListTargetsFindsEveryFuzzFunction(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	all, err := listTargets("")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, tg := range all {
		found[tg.name] = tg.pkg
	}
	for name, pkg := range map[string]string{
		"FuzzReadManifest":  "github.com/floedb/floe/iceberg/manifest",
		"FuzzOpenFile":      "github.com/floedb/floe/reader/parquet",
		"FuzzUnmarshalTask": "github.com/floedb/floe/reader/scan",
		"FuzzAnswers":       "github.com/floedb/floe/catalog/rest",
	} {
		if found[name] != pkg {
			t.Errorf("%s: found in %q, want %s", name, found[name], pkg)
		}
	}
	if len(all) < 38 {
		t.Errorf("%d targets, fewer than the 38 the module had", len(all))
	}
	only, err := listTargets("iceberg/manifest")
	if err != nil || len(only) != 3 {
		t.Errorf("-run iceberg/manifest: %d targets (%v)", len(only), err)
	}
}

func TestParseBudget(t *testing.T) {
	if b, err := parseBudget("2000x"); err != nil || b.execs != 2000 || b.time != 0 {
		t.Fatalf("2000x: %+v, %v", b, err)
	}
	if b, err := parseBudget("10m"); err != nil || b.time != 10*time.Minute || b.execs != 0 {
		t.Fatalf("10m: %+v, %v", b, err)
	}
	for _, bad := range []string{"", "x", "0x", "-5x", "soon", "-1s"} {
		if _, err := parseBudget(bad); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
}
