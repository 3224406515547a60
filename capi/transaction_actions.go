package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// The JSON action list of floe_table_transaction (documented in floe.h):
// a JSON array of objects, each {"action": "<name>", …fields}. Names and
// fields are the REST protocol's and pyiceberg's where they have one.
// Consecutive actions of one kind (schema changes, partition spec
// changes, branch and tag changes) are one builder, as the calls inside
// one pyiceberg update_schema() block are: one new schema, one new spec,
// one change to the refs.
//
// Parsing checks every field it can without the table (unknown names and
// fields, missing values, transforms, types); what needs the table (a
// column, a snapshot) is the builders' to refuse when the transaction
// builds.

// txActions is a parsed action list.
type txActions struct {
	steps []txStep
	// files are every data file the snapshot steps commit (for
	// discard_refused).
	files []manifest.DataFile
}

// txStep adds one step, or one builder of consecutive actions of a
// family, to a transaction.
type txStep struct {
	family string // "" for a step that takes no later action
	group  any    // the family's builder, for actions that join it
	add    func(tx *table.Transaction) error
	// run, when set, adds the step instead of add: a row-level step that
	// reads the table and writes files as it is added (transaction_rows.go).
	run func(ctx context.Context, tx *table.Transaction) error
	// act is the step's metadata action, nil for a snapshot step: what
	// previewMetadata applies.
	act action.Action
}

// txAction is one element of the list being parsed.
type txAction struct {
	index int
	name  string
	raw   json.RawMessage
}

func (a txAction) what() string { return fmt.Sprintf("action %d (%s)", a.index, a.name) }

// decode reads the action's fields into v (a struct with an "action"
// field), refusing fields it does not have.
func (a txAction) decode(v any) error { return decodeStrict(a.raw, v, a.what()) }

func (a txAction) invalid(format string, args ...any) error {
	return invalidArgument("%s: %s", a.what(), fmt.Sprintf(format, args...))
}

// txParsers parse each action by name into the list.
var txParsers = map[string]func(a txAction, into *txActions) error{}

// registerTx adds parsers (each file of an action family registers its
// own in an init).
func registerTx(parsers map[string]func(a txAction, into *txActions) error) {
	for name, p := range parsers {
		txParsers[name] = p
	}
}

// parseTxActions reads an action list.
func parseTxActions(data []byte) (*txActions, error) {
	data, err := checkJSON(data, "actions")
	if err != nil {
		return nil, err
	}
	if data == nil {
		return nil, invalidArgument("actions: none given (a JSON array of objects such as {\"action\": \"set-properties\", \"updates\": {\"k\": \"v\"}})")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, invalidArgument("actions: want a JSON array of action objects: %v", err)
	}
	if len(raw) == 0 {
		return nil, invalidArgument("actions: the list is empty")
	}
	// A refused list is read to its end all the same, so the files of
	// every snapshot step it holds are known (out.files) and a caller that
	// asked for discard_refused can delete them; the first refusal is the
	// error.
	out := &txActions{}
	var first error
	for i, r := range raw {
		if err := parseTxAction(i, r, out); err != nil && first == nil {
			first = err
		}
	}
	return out, first
}

func parseTxAction(i int, r json.RawMessage, out *txActions) error {
	var head struct {
		Action *string `json:"action"`
	}
	if err := json.Unmarshal(r, &head); err != nil {
		return invalidArgument("action %d: want an object with an \"action\" name: %v", i, err)
	}
	if head.Action == nil {
		return invalidArgument("action %d: no \"action\" name", i)
	}
	parse, ok := txParsers[*head.Action]
	if !ok {
		return unknownTxAction(i, *head.Action)
	}
	return parse(txAction{index: i, name: *head.Action, raw: r}, out)
}

func unknownTxAction(i int, name string) error {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range txParsers {
			if !yield(n) {
				return
			}
		}
	})
	msg := fmt.Sprintf("action %d: unknown action %q", i, name)
	if c := iceberg.ClosestName(name, names); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	return invalidArgument("%s; the actions are %s", msg, strings.Join(names, ", "))
}

// addTo adds the steps to tx in order; the first error stops, and
// discards tx (deleting the files row-level steps before it wrote).
func (a *txActions) addTo(ctx context.Context, tx *table.Transaction) error {
	for _, s := range a.steps {
		var err error
		if s.run != nil {
			err = s.run(ctx, tx)
		} else {
			err = s.add(tx)
		}
		if err != nil {
			tx.Discard(ctx)
			return err
		}
	}
	return nil
}

// then appends a step no later action joins.
func (a *txActions) then(add func(tx *table.Transaction) error) {
	a.steps = append(a.steps, txStep{add: add})
}

// thenRun appends a step no later action joins that needs the call's
// context as it is added.
func (a *txActions) thenRun(run func(ctx context.Context, tx *table.Transaction) error) {
	a.steps = append(a.steps, txStep{run: run})
}

// addAction appends a metadata action no later action joins; add, when
// not nil, is how the transaction takes it (else tx.Add).
func (a *txActions) addAction(act action.Action, add func(tx *table.Transaction)) {
	if add == nil {
		add = func(tx *table.Transaction) { tx.Add(act) }
	}
	a.steps = append(a.steps, txStep{act: act, add: func(tx *table.Transaction) error { add(tx); return nil }})
}

// group is the builder of family that the previous action opened, or a
// new one (mk) added as a step.
func group[T action.Action](a *txActions, family string, mk func() T) T {
	if n := len(a.steps); n > 0 && a.steps[n-1].family == family {
		return a.steps[n-1].group.(T)
	}
	g := mk()
	a.steps = append(a.steps, txStep{family: family, group: g, act: g, add: func(tx *table.Transaction) error {
		tx.Add(g)
		return nil
	}})
	return g
}

// parseTransform reads a transform in Iceberg's form ("identity",
// "bucket[16]", …; "" is identity).
func parseTransform(a txAction, s string) (iceberg.Transform, error) {
	name := strings.TrimSpace(s)
	if name == "" {
		name = "identity"
	}
	t, err := iceberg.ParseTransform(name)
	if _, unknown := t.(iceberg.UnknownTransform); err != nil || unknown {
		return nil, a.invalid("transform %q is not one floe knows (identity, year, month, day, hour, bucket[N], truncate[W], void)", s)
	}
	return t, nil
}

// The metadata actions that are not builders.
func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"set-properties": func(a txAction, into *txActions) error {
			var v struct {
				Action  string            `json:"action"`
				Updates map[string]string `json:"updates"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if len(v.Updates) == 0 {
				return a.invalid("no \"updates\" (an object of properties to set)")
			}
			// Committed through the transaction, which protects floe's own
			// properties; previewed as the plain change.
			into.addAction(action.SetProperties{Set: v.Updates}, func(tx *table.Transaction) { tx.SetProperties(v.Updates, nil) })
			return nil
		},
		"remove-properties": func(a txAction, into *txActions) error {
			var v struct {
				Action   string   `json:"action"`
				Removals []string `json:"removals"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if len(v.Removals) == 0 {
				return a.invalid("no \"removals\" (an array of property keys)")
			}
			into.addAction(action.SetProperties{Remove: v.Removals}, func(tx *table.Transaction) { tx.SetProperties(nil, v.Removals) })
			return nil
		},
		"upgrade-format-version": func(a txAction, into *txActions) error {
			var v struct {
				Action        string `json:"action"`
				FormatVersion *int   `json:"format-version"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.FormatVersion == nil {
				return a.invalid("no \"format-version\"")
			}
			into.addAction(action.UpgradeFormatVersion{FormatVersion: *v.FormatVersion}, nil)
			return nil
		},
	})
}

// txPath is a column path: a dotted name ("payload.kind") or an array of
// names (["payload", "kind"]), which the builders take joined by dots.
type txPath string

func (p *txPath) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = txPath(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("a column path is a dotted name or an array of names, not %s", b)
	}
	*p = txPath(strings.Join(parts, "."))
	return nil
}
