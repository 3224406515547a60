"""A catalog's properties, resolved as pyiceberg resolves them, so that a
``.pyiceberg.yaml`` and ``PYICEBERG_CATALOG__*`` variables written for
pyiceberg open the same catalog in floe. The Go CLI's ``--catalog NAME``
follows the same policy (package catalog/config); both are tested over
the same fixture (testdata/pyiceberg-config).

Where properties come from, the first winning:

- explicit properties (load_catalog's keywords);
- environment variables ``PYICEBERG_CATALOG__<NAME>__<KEY>`` (case-blind;
  ``__`` inside KEY is ``.``, ``_`` is ``-``:
  ``PYICEBERG_CATALOG__PROD__S3__ACCESS_KEY_ID`` is ``s3.access-key-id``);
- the ``catalog:`` section of the first ``.pyiceberg.yaml`` found in
  ``$PYICEBERG_HOME``, the home directory, then the working directory
  (one file: they are not merged);
- ``$FLOE_CATALOG``, floe's own variable, when it is a uri (not the name
  of a configured catalog): the uri of last resort, used only when nothing
  above gives one (nor, for a warehouse catalog, a warehouse).

The name is the one asked for, else ``$FLOE_CATALOG`` when it names a
configured catalog, else ``default-catalog`` (file or
``PYICEBERG_DEFAULT_CATALOG``), else "default"; names and keys match
case-blind. Empty values hide nothing. The configuration is read at each
load_catalog (pyiceberg reads it once, at import). Departures from
pyiceberg: a nested mapping in a catalog's entry is read as dotted keys,
a key given twice is an error, and floe's ``warehouse`` type (also
``filesystem``, ``hadoop``) is a filesystem warehouse.
"""

import os
from typing import NamedTuple

from . import _yaml
from ._errors import FloeError, Status

FILE_NAME = ".pyiceberg.yaml"
ENV_HOME = "PYICEBERG_HOME"
ENV_PREFIX = "PYICEBERG_"
ENV_FLOE_CATALOG = "FLOE_CATALOG"

_TYPES = {"sql": "sql", "rest": "rest", "warehouse": "warehouse", "filesystem": "warehouse", "hadoop": "warehouse"}
_URI_PREFIXES = {"sql": ("sqlite:", "postgresql://", "postgres://"), "rest": ("http://", "https://")}


class ResolvedCatalog(NamedTuple):
    """What opening a catalog takes: its name (as asked for: a SQL
    catalog keeps its rows under it), type ("sql", "rest", "warehouse"),
    uri (a warehouse's root) and its other properties, "name" included."""

    name: str
    type: str
    uri: str
    properties: dict


def _error(code, message):
    return FloeError(code, message)


def _flatten(out, prefix, mapping, name):
    """A catalog's entry with nested mappings' keys joined by "." (s3:
    {endpoint: …} is s3.endpoint), so the environment's keys replace them."""
    for k, v in mapping.items():
        key = prefix + k
        if isinstance(v, dict):
            _flatten(out, key + ".", v, name)
            continue
        if key in out:
            raise _error(Status.INVALID_ARGUMENT, f'catalog "{name}" gives {key} twice')
        out[key] = v
    return out


def _env_path(var):
    """Where a PYICEBERG_ variable's value goes: its name after the prefix,
    lowercased, cut at its first two "__"; in each part a further "__" is
    "." and "_" is "-" (pyiceberg's rule)."""
    parts = var[len(ENV_PREFIX):].lower().split("__", 2)
    return [p.replace("__", ".").replace("_", "-") for p in parts]


class Config:
    """The configuration as the file and the environment give it: file is
    the file read (None when none was found), searched the directories
    looked in."""

    def __init__(self, environ, home, cwd, use_pyyaml=None):
        self.file = None
        self.searched = []
        self._tree = {}
        self._floe_catalog = environ.get(ENV_FLOE_CATALOG, "")
        for directory in (environ.get(ENV_HOME), home, cwd):
            if not directory:
                continue
            self.searched.append(directory)
            path = os.path.join(directory, FILE_NAME)
            if not os.path.isfile(path):
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError) as e:
                raise _error(Status.INVALID_ARGUMENT, f"{path}: cannot be read: {type(e).__name__}") from None
            try:
                tree = _yaml.parse(text, use_pyyaml)
                cats = tree.get("catalog")
                if isinstance(cats, dict):
                    for name, entry in list(cats.items()):
                        if isinstance(entry, dict):
                            cats[name] = _flatten({}, "", entry, name)
            except _yaml.YAMLError as e:
                raise _error(Status.INVALID_ARGUMENT, f"{path}: {e}") from None
            except FloeError as e:
                raise _error(e.code, f"{path}: {e.message}") from None
            self.file, self._tree = path, tree
            break
        self._overlay_env(environ)

    def _overlay_env(self, environ):
        # In the variables' order by name, so the outcome does not depend
        # on the environment's order.
        prefix = ENV_PREFIX.lower()
        for var in sorted(k for k, v in environ.items() if k.lower().startswith(prefix) and v != ""):
            path = _env_path(var)
            node = self._tree
            for part in path[:-1]:
                nxt = node.get(part)
                if nxt is None:
                    nxt = node[part] = {}
                elif not isinstance(nxt, dict):
                    raise _error(Status.INVALID_ARGUMENT,
                                 f"environment variable {var} sets a key below {part!r}, which the configuration gives a value")
                node = nxt
            node[path[-1]] = environ[var]

    def _catalogs(self):
        cats = self._tree.get("catalog")
        if cats is None:
            return {}
        if not isinstance(cats, dict):
            raise _error(Status.INVALID_ARGUMENT, f"{self._where()}: catalog: is not a mapping of catalog names")
        return cats

    def names(self):
        """The configured catalogs, sorted."""
        try:
            return sorted(self._catalogs())
        except FloeError:
            return []

    def configured(self, name):
        return bool(name) and name.lower() in self.names()

    def default_catalog(self):
        if self._floe_catalog and self.configured(self._floe_catalog):
            return self._floe_catalog
        name = self._tree.get("default-catalog")
        return name if isinstance(name, str) and name else "default"

    def _where(self):
        if self.file:
            return f"{self.file} and the PYICEBERG_ environment variables"
        return f"the PYICEBERG_ environment variables (no {FILE_NAME} in {', '.join(self.searched)})"

    def resolve(self, name=None, explicit=None):
        """The catalog's ResolvedCatalog. FloeError NOT_FOUND when nothing
        configures it, INVALID_ARGUMENT for a missing uri or one its type
        does not take, UNSUPPORTED for a type floe does not open. No
        message shows a property's value."""
        if not name:
            name = self.default_catalog()
        fallback = "" if self.configured(self._floe_catalog) else self._floe_catalog
        cats = self._catalogs()
        props = {}
        entry = cats.get(name.lower())
        configured = name.lower() in cats
        if configured:
            if not isinstance(entry, dict):
                raise _error(Status.INVALID_ARGUMENT, f'{self._where()}: catalog "{name}" is not a mapping of properties')
            for k, v in entry.items():
                if not isinstance(v, str):
                    raise _error(Status.INVALID_ARGUMENT, f'{self._where()}: catalog "{name}": property {k} is not a value')
                props[k] = v
        given = False
        for k, v in (explicit or {}).items():
            if v != "":
                props[k], given = v, True
        props.pop("name", None)
        if not configured and not given and not fallback:
            raise _error(Status.NOT_FOUND, f'catalog "{name}" is not configured: {self._known(name)}')
        kind = props.pop("type", "").lower()
        if kind and kind not in _TYPES:
            raise _error(Status.UNSUPPORTED, f'catalog "{name}": type "{kind}" is not supported (sql, rest and warehouse are)')
        kind = _TYPES.get(kind, "")
        uri = props.pop("uri", "")
        if not uri and kind == "warehouse":
            uri = props.get("warehouse", "")
        if not uri:
            uri = fallback
        if not uri:
            raise _error(Status.INVALID_ARGUMENT,
                         f'catalog "{name}" has no uri: set it under catalog: {name.lower()}: in {self.file or FILE_NAME}, '
                         f"as {ENV_PREFIX}CATALOG__{name.upper()}__URI, or as an explicit property")
        inferred = _infer_type(name, uri)
        if not kind:
            kind = inferred
        elif kind != inferred:
            raise _error(Status.INVALID_ARGUMENT,
                         f'catalog "{name}": a {kind} catalog\'s uri is {_uri_forms(kind)}, not {_scheme_of(uri)}')
        props["name"] = name
        return ResolvedCatalog(name, kind, uri, props)

    def _known(self, name):
        hint = f"set {ENV_PREFIX}CATALOG__{name.upper()}__URI or give its uri"
        names = self.names()
        return f"{self._where()} configure {', '.join(names) if names else 'no catalogs'}; {hint}"


def _scheme(uri):
    """uri's scheme, or None for a path (C:\\… is a drive)."""
    scheme, sep, _ = uri.partition(":")
    if not sep or len(scheme) == 1 or "/" in scheme or "\\" in scheme:
        return None
    return scheme


def _infer_type(name, uri):
    """The type uri tells, as pyiceberg tells REST and SQL; a path, file://
    or s3:// is a warehouse. Only the scheme reaches a message: the rest
    may hold a password."""
    for kind, prefixes in _URI_PREFIXES.items():
        if uri.startswith(prefixes):
            return kind
    scheme = _scheme(uri)
    if scheme is None or scheme.lower() in ("file", "s3", "s3a"):
        return "warehouse"
    raise _error(Status.INVALID_ARGUMENT, f'catalog "{name}": cannot tell its type from a uri with scheme "{scheme}" '
                                     "(floe opens sqlite:, postgresql://, http(s):// and warehouses)")


def _uri_forms(kind):
    if kind == "warehouse":
        return "a directory, file://… or s3://…"
    return "… or ".join(_URI_PREFIXES[kind]) + "…"


def _scheme_of(uri):
    scheme = _scheme(uri)
    return "a path" if scheme is None else f'"{scheme}:"'


def load_config(use_pyyaml=None):
    """This process's configuration: its environment, home and working
    directories."""
    return Config(os.environ, os.path.expanduser("~"), os.getcwd(), use_pyyaml)


def _text(v):
    # pyiceberg's properties are strings; a bool is written as YAML has it.
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def resolve_catalog(name=None, properties=None):
    """The ResolvedCatalog load_catalog opens: explicit properties (None
    values left out) over the configuration's."""
    explicit = {str(k): _text(v) for k, v in (properties or {}).items() if v is not None}
    return load_config().resolve(name, explicit)


__all__ = ["Config", "ResolvedCatalog", "load_config", "resolve_catalog"]
