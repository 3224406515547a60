//go:build race

package writer

// raceEnabled shrinks the slowest tests under the race detector, which
// runs them ten times slower; the full sizes run without it.
const raceEnabled = true
