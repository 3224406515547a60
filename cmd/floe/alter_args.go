package main

import (
	"fmt"
	"slices"
	"strings"
)

// alterStep is one action of `floe alter` as typed: its word, its
// positional arguments and its own flags.
type alterStep struct {
	verb  string
	args  []string
	flags map[string][]string
}

func (s alterStep) flag(name string) (string, bool) {
	v := s.flags[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// alterVerb is what one action word takes.
type alterVerb struct {
	// args are the positional arguments it needs; more (up to optional
	// more, or any number when optional is -1) may follow.
	args, optional int
	// flags are its own flags, true for those that take a value.
	flags map[string]bool
	// group is the builder it joins: consecutive actions of one group are
	// one builder (one new schema, one new spec), as in Java and pyiceberg.
	group string
	usage string
}

var alterVerbs = map[string]alterVerb{
	"add-column":             {args: 2, flags: map[string]bool{"after": true, "before": true, "first": false, "default": true, "doc": true, "required": false}, group: "schema", usage: "add-column NAME TYPE [--after COL|--before COL|--first] [--default JSON] [--doc TEXT] [--required]"},
	"rename-column":          {args: 2, group: "schema", usage: "rename-column NAME NEW_NAME"},
	"drop-column":            {args: 1, group: "schema", usage: "drop-column NAME"},
	"update-column":          {args: 1, optional: 1, flags: map[string]bool{"doc": true, "default": true}, group: "schema", usage: "update-column NAME [TYPE] [--doc TEXT] [--default JSON]"},
	"make-optional":          {args: 1, group: "schema", usage: "make-optional NAME"},
	"make-required":          {args: 1, group: "schema", usage: "make-required NAME"},
	"move-column":            {args: 1, flags: map[string]bool{"after": true, "before": true, "first": false}, group: "schema", usage: "move-column NAME --first|--before COL|--after COL"},
	"set-identifier-fields":  {optional: -1, group: "schema", usage: "set-identifier-fields [COL]…"},
	"add-partition-field":    {args: 1, flags: map[string]bool{"name": true}, group: "spec", usage: "add-partition-field COL[:TRANSFORM] [--name NAME]"},
	"drop-partition-field":   {args: 1, group: "spec", usage: "drop-partition-field NAME|COL:TRANSFORM"},
	"rename-partition-field": {args: 2, group: "spec", usage: "rename-partition-field NAME NEW_NAME"},
	"set-sort-order":         {optional: -1, group: "sort", usage: "set-sort-order [COL[:TRANSFORM][:asc|desc][:nulls-first|nulls-last]]…"},
	"set-property":           {args: 1, group: "properties", usage: "set-property KEY=VALUE"},
	"unset-property":         {args: 1, group: "properties", usage: "unset-property KEY"},
	"upgrade":                {flags: map[string]bool{"format-version": true}, group: "format", usage: "upgrade --format-version N"},
}

// The flags every command takes (parseArgs), with whether they take a
// value: alter lets them stand anywhere among its actions.
var commonFlags = map[string]bool{
	"catalog": true, "catalog-prop": true, "map": true, "warehouse": true,
	"no-relocate": false, "quiet": false, "progress": false,
}

// parseAlter splits alter's arguments into the common flags (for
// parseArgs), the table and the actions. An action word starts a new
// action once the one before has its arguments; "--" makes every later
// argument a plain word (a column named "-x").
func parseAlter(raw []string) (common []string, table string, steps []alterStep, err error) {
	literal := false
	var cur *alterStep
	finish := func() error {
		if cur == nil {
			return nil
		}
		v := alterVerbs[cur.verb]
		if len(cur.args) < v.args {
			return fmt.Errorf("%s: wants %s", cur.verb, v.usage)
		}
		steps = append(steps, *cur)
		cur = nil
		return nil
	}
	for i := 0; i < len(raw); i++ {
		tok := raw[i]
		if !literal && tok == "--" {
			literal = true
			continue
		}
		if !literal && strings.HasPrefix(tok, "-") && tok != "-" {
			name, value, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
			if takesValue, ok := commonFlags[name]; ok {
				common = append(common, tok)
				if takesValue && !hasValue && i+1 < len(raw) {
					i++
					common = append(common, raw[i])
				}
				continue
			}
			if cur == nil {
				return nil, "", nil, fmt.Errorf("unknown flag %s", tok)
			}
			v := alterVerbs[cur.verb]
			takesValue, ok := v.flags[name]
			if !ok {
				return nil, "", nil, fmt.Errorf("%s: unknown flag %s (%s)", cur.verb, tok, v.usage)
			}
			switch {
			case !takesValue && hasValue:
				return nil, "", nil, fmt.Errorf("%s: flag --%s takes no value", cur.verb, name)
			case takesValue && !hasValue:
				if i+1 >= len(raw) {
					return nil, "", nil, fmt.Errorf("%s: flag --%s needs a value", cur.verb, name)
				}
				i++
				value = raw[i]
			}
			cur.flags[name] = append(cur.flags[name], value)
			continue
		}
		if table == "" {
			table = tok
			continue
		}
		if cur != nil {
			v := alterVerbs[cur.verb]
			_, isVerb := alterVerbs[tok]
			room := v.optional < 0 || len(cur.args) < v.args+v.optional
			if len(cur.args) < v.args || room && !isVerb {
				cur.args = append(cur.args, tok)
				continue
			}
		}
		if _, ok := alterVerbs[tok]; !ok {
			if cur == nil {
				return nil, "", nil, fmt.Errorf("unknown alter action %q (%s)", tok, strings.Join(alterVerbNames(), ", "))
			}
			return nil, "", nil, fmt.Errorf("%s: unexpected argument %q (%s)", cur.verb, tok, alterVerbs[cur.verb].usage)
		}
		if err := finish(); err != nil {
			return nil, "", nil, err
		}
		cur = &alterStep{verb: tok, flags: map[string][]string{}}
	}
	if err := finish(); err != nil {
		return nil, "", nil, err
	}
	return common, table, steps, nil
}

func alterVerbNames() []string {
	names := make([]string, 0, len(alterVerbs))
	for name := range alterVerbs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
