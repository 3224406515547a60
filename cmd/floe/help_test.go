package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

// floe CMD --help, floe CMD -h and floe help CMD print that command's
// usage on stdout and exit 0, for every command; an unknown one is an
// error.
func TestCommandHelp(t *testing.T) {
	for name := range commands {
		for _, argv := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}, {name, "some.table", "--help"}} {
			status, out, errOut := runCLI(t, argv...)
			if status != 0 || errOut != "" || !strings.Contains(out, "usage: floe "+name) {
				t.Errorf("floe %v: status %d, stdout %q, stderr %q", argv, status, out, errOut)
			}
		}
	}
	// A value that only looks like the flag is left to the command.
	if status, out, _ := runCLI(t, "scan", "--", "-h"); status == 0 || strings.Contains(out, "usage:") {
		t.Errorf("floe scan -- -h: status %d, %q", status, out)
	}
	if status, _, errOut := runCLI(t, "help", "nope"); status != 2 || !strings.Contains(errOut, `unknown command "nope"`) {
		t.Errorf("floe help nope: status %d, %q", status, errOut)
	}
}

// floe --version (and floe version) print the library's version, the
// one include/floe.h declares.
func TestVersion(t *testing.T) {
	header, err := os.ReadFile(fixtures.RepoPath("include/floe.h"))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`#define FLOE_VERSION_STRING "([^"]+)"`).FindSubmatch(header)
	if want == nil {
		t.Fatal("no FLOE_VERSION_STRING in include/floe.h")
	}
	for _, argv := range [][]string{{"--version"}, {"version"}} {
		status, out, errOut := runCLI(t, argv...)
		if status != 0 || out != "floe "+string(want[1])+"\n" || errOut != "" {
			t.Errorf("floe %v: status %d, stdout %q, stderr %q", argv, status, out, errOut)
		}
	}
}

// Every flag a command parses is in its help (`floe CMD --help`): its
// own text, what every command takes, or for the writing commands what
// writeHelp describes. Each command runs on a table that does not exist,
// which fails after its flags are read.
func TestHelpNamesEveryFlag(t *testing.T) {
	t.Setenv("FLOE_CATALOG", "")
	t.Setenv("FLOE_WAREHOUSE", "")
	var flags []string
	parsedFlags = func(valueFlags, boolFlags []string) {
		flags = append(append(flags, valueFlags...), boolFlags...)
	}
	defer func() { parsedFlags = nil }()
	missing := filepath.Join(t.TempDir(), "no-such-table")
	for name := range commands {
		argv := []string{name, missing}
		switch name {
		case "alter":
			argv = append(argv, "set-property", "a=b")
		case "branch", "tag":
			argv = []string{name, "create", missing, "b"}
		case "catalog":
			argv = []string{name, "namespaces"}
		}
		flags = nil
		runCLI(t, argv...)
		if len(flags) == 0 {
			t.Errorf("floe %v read no flags", argv)
			continue
		}
		var help strings.Builder
		if !printCommandHelp(&help, name) {
			t.Fatalf("no help for %s", name)
		}
		for _, f := range flags {
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f) + `([^a-z-]|$)`).MatchString(help.String()) {
				t.Errorf("floe %s takes --%s, which its help does not name", name, f)
			}
		}
	}
}
