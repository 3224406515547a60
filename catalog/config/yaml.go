package config

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/floedb/floe/errkind"
	"go.yaml.in/yaml/v3"
)

// parseYAML reads a configuration file into a tree of lowercased keys and
// scalar values kept as their text, as pyiceberg's strictyaml gives them
// ("8080", "true", "null" stay strings): decoding to nodes, not to typed
// values, so that no value is reinterpreted and none reaches a message.
func parseYAML(data []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]any{}, nil
		}
		return nil, malformed(err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, malformed(err)
		}
		return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: more than one YAML document (line %d)", more.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return map[string]any{}, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return map[string]any{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: line %d: the top level is not a mapping", root.Line)
	}
	budget := maxConfigValues
	v, err := nodeValue(root, &budget)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// malformed words the YAML library's error without its "yaml: " prefix;
// its scanner and parser errors give a line and a reason, not the text.
func malformed(err error) error {
	return errkind.Errorf(errkind.InvalidArgument, "malformed YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// maxConfigValues bounds the values a configuration expands to: aliases
// are followed, so a small file of nested aliases ("billion laughs") would
// otherwise expand without end. A real .pyiceberg.yaml holds dozens.
const maxConfigValues = 100_000

func nodeValue(n *yaml.Node, budget *int) (any, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if *budget--; *budget < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: it expands to more than %d values (aliases nested too deep?)", maxConfigValues)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: line %d: a key that is not a scalar", k.Line)
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				return nil, errkind.Errorf(errkind.Unsupported, "configuration: line %d: merge keys (<<) are not supported", k.Line)
			}
			key := strings.ToLower(k.Value)
			if _, dup := out[key]; dup {
				return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: line %d: key %q is given twice", k.Line, key)
			}
			v, err := nodeValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		return out, nil
	}
	return nil, errkind.Errorf(errkind.InvalidArgument, "malformed configuration: line %d: unexpected YAML node", n.Line)
}
