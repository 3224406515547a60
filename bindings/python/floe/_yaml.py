"""Reading a .pyiceberg.yaml into nested dicts of lowercased keys and text
values, as pyiceberg's strictyaml gives them ("8080", "true" stay strings).

Debian's python3-yaml (PyYAML) reads the file when it is installed: its
nodes are walked, not its typed values, so nothing is reinterpreted.
Without it, a reader of the subset such files use takes over: nested
block mappings by indentation, plain, 'single' and "double" quoted
scalars on one line, comments, one document. It refuses the rest
(sequences, flow collections, block scalars, anchors, tags) rather than
guessing. Either way the result is the one catalog/config gives in Go for
the same file, and no error shows a value: only a line and what is wrong.
"""

try:
    import yaml as _pyyaml
except ImportError:  # pragma: no cover - depends on the system
    _pyyaml = None


class YAMLError(ValueError):
    """A file that is not the YAML expected; the message holds no value."""


def reader():
    """Which reader parse uses: "PyYAML" or "floe" (the subset)."""
    return "PyYAML" if _pyyaml is not None else "floe"


def parse(text, use_pyyaml=None):
    """The file's mapping as a dict (empty for an empty file). use_pyyaml
    forces a reader (None: PyYAML when present)."""
    if use_pyyaml is None:
        use_pyyaml = _pyyaml is not None
    return _parse_pyyaml(text) if use_pyyaml else _parse_subset(text)


# PyYAML --------------------------------------------------------------------

def _parse_pyyaml(text):
    try:
        docs = list(_pyyaml.compose_all(text, Loader=_pyyaml.BaseLoader))
    except _pyyaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise YAMLError(f"malformed YAML: {line}{e.problem or e.context}") from None
    except _pyyaml.YAMLError:
        raise YAMLError("malformed YAML") from None
    if not docs:
        return {}
    if len(docs) > 1:
        raise YAMLError(f"malformed configuration: more than one YAML document (line {docs[1].start_mark.line + 1})")
    root = docs[0]
    if not isinstance(root, _pyyaml.MappingNode):
        raise YAMLError(f"malformed configuration: line {root.start_mark.line + 1}: the top level is not a mapping")
    return _node_value(root)


def _node_value(node):
    if isinstance(node, _pyyaml.ScalarNode):
        return node.value
    if isinstance(node, _pyyaml.SequenceNode):
        return [_node_value(n) for n in node.value]
    out = {}
    for k, v in node.value:
        line = k.start_mark.line + 1
        if not isinstance(k, _pyyaml.ScalarNode):
            raise YAMLError(f"malformed configuration: line {line}: a key that is not a scalar")
        if k.value == "<<" and k.style is None:
            raise YAMLError(f"configuration: line {line}: merge keys (<<) are not supported")
        key = k.value.lower()
        if key in out:
            raise YAMLError(f'malformed configuration: line {line}: key "{key}" is given twice')
        out[key] = _node_value(v)
    return out


# The subset reader -----------------------------------------------------------

_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}
_UNSUPPORTED = "[]{}|>&*!%@`"


def _unsupported(line, what):
    return YAMLError(f"configuration: line {line}: {what} are not supported by floe's YAML reader "
                     "(install python3-yaml for full YAML)")


def _quoted(s, line):
    """Reads the quoted scalar s starts with: (value, rest of the line)."""
    quote, i, out = s[0], 1, []
    while i < len(s):
        c = s[i]
        if c == quote:
            if quote == "'" and s[i + 1:i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), s[i + 1:]
        if c == "\\" and quote == '"':
            e = s[i + 1:i + 2]
            if e in _HEX:
                digits = s[i + 2:i + 2 + _HEX[e]]
                try:
                    out.append(chr(int(digits, 16)))
                except ValueError:
                    raise YAMLError(f"malformed YAML: line {line}: a bad \\{e} escape") from None
                i += 2 + _HEX[e]
                continue
            if e not in _ESCAPES:
                raise YAMLError(f"malformed YAML: line {line}: an unknown escape character")
            out.append(_ESCAPES[e])
            i += 2
            continue
        out.append(c)
        i += 1
    raise YAMLError(f"malformed YAML: line {line}: a quoted scalar does not end on its line "
                    "(floe's YAML reader takes one-line scalars)")


def _after_scalar(rest, line):
    """What may follow a quoted scalar: spaces and a comment."""
    rest = rest.strip(" ")
    if rest and not rest.startswith("#"):
        raise YAMLError(f"malformed YAML: line {line}: text after a quoted scalar")


def _plain(s, line):
    """A plain value: up to a comment (" #"), trailing spaces dropped."""
    if s[0] in _UNSUPPORTED:
        raise _unsupported(line, "flow collections, block scalars, anchors, aliases and tags")
    if s.startswith(("- ", "? ")) or s in ("-", "?"):
        raise YAMLError(f"malformed YAML: line {line}: a sequence or complex key where a value belongs")
    cut = s.find(" #")
    value = (s if cut < 0 else s[:cut]).rstrip(" ")
    if ": " in value or value.endswith(":"):
        raise YAMLError(f"malformed YAML: line {line}: mapping values are not allowed here")
    return value


def _key_value(content, line):
    """Splits "key: value" into the key and the value's text (None when
    the line ends at the colon: a nested mapping or an empty value)."""
    if content[0] in "\"'":
        key, rest = _quoted(content, line)
        rest = rest.lstrip(" ")
        if not rest.startswith(":"):
            raise YAMLError(f"malformed YAML: line {line}: a key without a colon")
        rest = rest[1:]
    else:
        if content[0] in _UNSUPPORTED or content.startswith("? "):
            raise _unsupported(line, "flow collections, complex keys, anchors, aliases and tags")
        cut = content.find(": ")
        if cut < 0 and content.endswith(":"):
            cut = len(content) - 1
        if cut < 0:
            raise YAMLError(f"malformed configuration: line {line}: a line that is not KEY: VALUE")
        key, rest = content[:cut].rstrip(" "), content[cut + 1:]
        if " #" in key:
            raise YAMLError(f"malformed configuration: line {line}: a line that is not KEY: VALUE")
        if key == "<<":
            raise YAMLError(f"configuration: line {line}: merge keys (<<) are not supported")
    if rest and not rest.startswith((" ", "\t")):
        raise YAMLError(f"malformed YAML: line {line}: no space after a key's colon")
    rest = rest.strip(" \t")
    if not rest or rest.startswith("#"):
        return key, None
    if rest[0] in "\"'":
        value, after = _quoted(rest, line)
        _after_scalar(after, line)
        return key, value
    return key, _plain(rest, line)


def _parse_subset(text):
    root = {}
    # The open mappings, innermost last, each with its indentation (None
    # until its first key fixes it).
    stack = [[None, root]]
    pending = None  # (indentation, mapping, key) of a key with no value yet
    started = ended = False
    for line, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        content = raw.lstrip(" ")
        indent = len(raw) - len(content)
        if content.startswith("\t"):
            raise YAMLError(f"malformed YAML: line {line}: a tab in indentation")
        if not content.strip() or content.startswith("#"):
            continue
        if indent == 0 and (content.rstrip() in ("---", "...") or content.startswith(("--- ", "... "))):
            if content.startswith("..."):
                ended = True
                continue
            if started or ended:
                raise YAMLError(f"malformed configuration: more than one YAML document (line {line})")
            started = True
            continue
        if ended:
            raise YAMLError(f"malformed configuration: more than one YAML document (line {line})")
        started = True
        if content.startswith("- ") or content.rstrip() == "-":
            raise _unsupported(line, "sequences")
        if pending is not None:
            p_indent, p_map, p_key = pending
            pending = None
            if indent > p_indent:
                child = {}
                p_map[p_key] = child
                stack.append([indent, child])
        while len(stack) > 1 and indent < stack[-1][0]:
            stack.pop()
        top = stack[-1]
        if top[0] is None:
            top[0] = indent
        if indent != top[0]:
            raise YAMLError(f"malformed YAML: line {line}: bad indentation")
        key, value = _key_value(content.rstrip(" \t"), line)
        key = key.lower()
        if key in top[1]:
            raise YAMLError(f'malformed configuration: line {line}: key "{key}" is given twice')
        top[1][key] = "" if value is None else value
        if value is None:
            pending = (indent, top[1], key)
    if not started:
        return {}
    if root == {} and stack[0][0] is None:
        return {}
    return root
