package main

import (
	"os"
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
