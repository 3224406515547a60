// Command floe inspects and reads Apache Iceberg tables.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/floedb/floe/internal/version"
)

// command runs with the rest of the arguments; out is for the data, errOut
// for anything else.
type command func(ctx context.Context, a []string, out, errOut io.Writer) error

var commands = map[string]command{
	"info":      runInfo,
	"files":     runFiles,
	"scan":      runScan,
	"inspect":   runInspect,
	"create":    runCreate,
	"append":    runAppend,
	"add-files": runAddFiles,
	"expire":    runExpire,
	"delete":    runDelete,
	"upsert":    runUpsert,
	"compact":   runCompact,
	"catalog":   runCatalog,

	"remove-orphans":    runRemoveOrphans,
	"rewrite-manifests": runRewriteManifests,
	"rewrite-deletes":   runRewriteDeletes,
	"stats":             runStats,
	"maintain":          runMaintain,

	"alter":        runAlter,
	"branch":       runBranch,
	"tag":          runTag,
	"rollback":     runRollback,
	"cherry-pick":  runCherryPick,
	"fast-forward": runFastForward,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status; a failure, even a
// panic, is reported as one line on stderr.
func run(argv []string, out, errOut io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(errOut, "floe: internal error: %v\n", r)
			if os.Getenv("FLOE_DEBUG") != "" {
				errOut.Write(debug.Stack())
			}
			status = 70
		}
	}()
	switch {
	case len(argv) == 0:
		fmt.Fprint(errOut, usage())
		return 2
	case argv[0] == "-h" || argv[0] == "--help" || argv[0] == "help" && len(argv) == 1:
		fmt.Fprint(out, usage())
		return 0
	case argv[0] == "--version" || argv[0] == "version":
		fmt.Fprintf(out, "floe %s\n", version.String)
		return 0
	case argv[0] == "help":
		if !printCommandHelp(out, argv[1]) {
			fmt.Fprintf(errOut, "floe: unknown command %q\n\n%s", argv[1], usage())
			return 2
		}
		return 0
	}
	cmd, ok := commands[argv[0]]
	if !ok {
		fmt.Fprintf(errOut, "floe: unknown command %q\n\n%s", argv[0], usage())
		return 2
	}
	if asksForHelp(argv[1:]) {
		printCommandHelp(out, argv[0])
		return 0
	}
	if err := cmd(context.Background(), argv[1:], out, errOut); err != nil {
		fmt.Fprintf(errOut, "floe %s: %v\n", argv[0], argumentSecrets(argv[1:]).Error(err))
		return 1
	}
	return 0
}
