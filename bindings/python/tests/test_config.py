"""load_catalog resolves a catalog as pyiceberg does: explicit properties,
then PYICEBERG_CATALOG__NAME__KEY variables, then the first .pyiceberg.yaml
in $PYICEBERG_HOME, home, cwd, and $FLOE_CATALOG last. The resolution cases
in testdata/pyiceberg-config/cases.json are the ones the Go side
(catalog/config) checks: both languages resolve that file alike, with
PyYAML and with floe's own YAML reader. Catalogs configured so are opened
for real (SQLite and a warehouse), and no error shows a secret."""

import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status, _config, _yaml  # noqa: E402
from tests.fixtures import REPO  # noqa: E402

FIXTURE = os.path.join(REPO, "testdata", "pyiceberg-config")
with open(os.path.join(FIXTURE, "cases.json"), encoding="utf-8") as _f:
    CASES = json.load(_f)
SECRETS = CASES["secrets"]
READERS = [True, False] if _yaml._pyyaml is not None else [False]
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}


class SharedFixtureTest(unittest.TestCase):
    """The cases Go checks too, with either YAML reader."""

    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="floe-config-home-")
        self.cwd = tempfile.mkdtemp(prefix="floe-config-cwd-")

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.cwd, ignore_errors=True)

    def resolve(self, case, use_pyyaml):
        environ = dict(case.get("env", {}), PYICEBERG_HOME=FIXTURE, UNRELATED="1")
        return _config.Config(environ, self.home, self.cwd, use_pyyaml).resolve(case["name"], case.get("explicit"))

    def test_cases(self):
        self.assertGreater(len(CASES["cases"]), 15)
        for use_pyyaml in READERS:
            for case in CASES["cases"]:
                with self.subTest(case["what"], pyyaml=use_pyyaml):
                    want = case["want"]
                    if "error" in want:
                        with self.assertRaises(FloeError) as cm:
                            self.resolve(case, use_pyyaml)
                        self.assertEqual(cm.exception.code.name, want["error"], cm.exception)
                        for s in SECRETS:
                            self.assertNotIn(s, str(cm.exception))
                        continue
                    got = self.resolve(case, use_pyyaml)
                    self.assertEqual(got, _config.ResolvedCatalog(want["name"], want["type"], want["uri"], want["props"]))

    def test_malformed_files(self):
        files = sorted(os.listdir(os.path.join(FIXTURE, "malformed")))
        self.assertGreaterEqual(len(files), 7)
        for use_pyyaml in READERS:
            for name in files:
                with self.subTest(name, pyyaml=use_pyyaml):
                    shutil.copy(os.path.join(FIXTURE, "malformed", name), os.path.join(self.home, ".pyiceberg.yaml"))
                    with self.assertRaises(FloeError) as cm:
                        _config.Config({}, self.home, self.cwd, use_pyyaml)
                    self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT, cm.exception)
                    self.assertIn(os.path.join(self.home, ".pyiceberg.yaml"), str(cm.exception))
                    for s in SECRETS:
                        self.assertNotIn(s, str(cm.exception))

    def test_readers_agree(self):
        with open(os.path.join(FIXTURE, ".pyiceberg.yaml"), encoding="utf-8") as f:
            fixture_text = f.read()
        texts = [fixture_text,
                 "", "# only a comment\n", "---\ncatalog:\n  a:\n    uri: x # c\n    empty:\n    k: 'it''s'\n...\n",
                 "catalog:\n    deep:\n        s3:\n            endpoint: \"http://h:1\"\n    other:\n",
                 'k: "\\x41\\u00e9\\t\\\\"\nTop: v\n']
        if _yaml._pyyaml is None:
            self.skipTest("python3-yaml is not installed")
        for text in texts:
            with self.subTest(text=text[:40]):
                self.assertEqual(_yaml.parse(text, use_pyyaml=False), _yaml.parse(text, use_pyyaml=True))
        # What the subset reader refuses, with a reason and no value.
        for text in ["a:\n  - topsecret\n", "a: [topsecret]\n", "a: |\n  topsecret\n", "a: &x topsecret\n"]:
            with self.subTest(text=text), self.assertRaises(_yaml.YAMLError) as cm:
                _yaml.parse(text, use_pyyaml=False)
            self.assertNotIn("topsecret", str(cm.exception))
            self.assertIn("python3-yaml", str(cm.exception))


class ReaderPropertyTest(unittest.TestCase):
    """Random configurations written in the styles people use (plain,
    'single' and "double" quoted values, comments, blank lines, 2 or 4
    spaces, upper-case keys) read back as written, by both readers."""

    CHARS = "abcXYZ019 _-.:/#'\"\\\té€"

    def value(self, rng):
        return "".join(rng.choice(self.CHARS) for _ in range(rng.randrange(0, 12)))

    def render_value(self, rng, v):
        plain_ok = (v and all(c.isalnum() or c in "_./-#:" for c in v) and v[0] not in "-#:"
                    and not v.endswith(":"))
        style = rng.choice(["plain", "single", "double"] if plain_ok else (["double"] if "\t" in v else ["single", "double"]))
        if style == "plain":
            return v
        if style == "single":
            return "'" + v.replace("'", "''") + "'"
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'

    def tree(self, rng, depth):
        out = {}
        for _ in range(rng.randrange(1, 5)):
            key = "".join(rng.choice("abcdEF_.-12") for _ in range(rng.randrange(1, 8)))
            if key.lower() in out or key[0] in "-.":
                continue
            out[key.lower()] = self.tree(rng, depth + 1) if depth < 3 and rng.random() < 0.4 else self.value(rng)
        return out or {"k": "v"}

    def render(self, rng, tree, indent, step, lines):
        for key, v in tree.items():
            if rng.random() < 0.2:
                lines.append(" " * rng.randrange(0, 6) + "# a comment: 'x' \"y\"")
            if rng.random() < 0.1:
                lines.append("")
            shown = key.upper() if rng.random() < 0.3 else key
            if isinstance(v, dict):
                lines.append(" " * indent + shown + ":" + (" # c" if rng.random() < 0.3 else ""))
                self.render(rng, v, indent + step, step, lines)
            else:
                comment = " # trailing" if rng.random() < 0.3 else ""
                lines.append(" " * indent + shown + ": " + self.render_value(rng, v) + comment)

    def test_random_configurations(self):
        import random

        rng = random.Random(31)
        for i in range(300):
            tree = self.tree(rng, 0)
            lines = []
            self.render(rng, tree, 0, rng.choice([2, 4]), lines)
            text = "\n".join(lines) + "\n"
            for use_pyyaml in READERS:
                with self.subTest(i=i, pyyaml=use_pyyaml):
                    self.assertEqual(_yaml.parse(text, use_pyyaml), tree, text)


class LoadCatalogTest(unittest.TestCase):
    """load_catalog in a process whose HOME, PYICEBERG_HOME, working
    directory and variables the test sets."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="floe-config-")
        self.home, self.pyhome, self.cwd = (os.path.join(self.root, d) for d in ("home", "pyhome", "cwd"))
        for d in (self.home, self.pyhome, self.cwd):
            os.mkdir(d)
        environ = {k: v for k, v in os.environ.items()
                   if not k.upper().startswith("PYICEBERG_") and k != "FLOE_CATALOG"}
        environ["HOME"] = self.home
        patcher = mock.patch.dict(os.environ, environ, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)
        old = os.getcwd()
        os.chdir(self.cwd)
        self.addCleanup(os.chdir, old)
        self.addCleanup(shutil.rmtree, self.root, True)

    def write(self, directory, text):
        with open(os.path.join(directory, ".pyiceberg.yaml"), "w", encoding="utf-8") as f:
            f.write(text)

    def sqlite(self, label):
        """A SQLite catalog's uri holding one table, label.t."""
        uri = "sqlite:" + os.path.join(self.root, label + ".db")
        cat = floe.load_catalog("setup", uri=uri, warehouse=os.path.join(self.root, label + "-wh"))
        cat.create_namespace(label)
        cat.create_table((label, "t"), SCHEMA).append([{"id": 1}])
        cat.close()
        return uri

    def tables(self, name=None, **props):
        cat = floe.load_catalog(name, **props)
        try:
            return [t for ns in cat.list_namespaces() for t in cat.list_tables(ns)]
        finally:
            cat.close()

    def test_sql_catalog_from_the_file_and_from_variables(self):
        a = self.sqlite("a")
        for use_pyyaml in READERS:
            with self.subTest(pyyaml=use_pyyaml), mock.patch.object(_yaml, "_pyyaml", _yaml._pyyaml if use_pyyaml else None):
                # The setup catalog's rows are kept under "setup", as
                # pyiceberg's SqlCatalog keeps them under its name.
                self.write(self.home, f"default-catalog: setup\ncatalog:\n  setup:\n    uri: '{a}'\n")
                self.assertEqual(self.tables(), [("a", "t")])
                cat = floe.load_catalog()
                self.assertEqual(cat.name, "setup")
                self.assertEqual(cat.load_table("a.t").scan().to_pylist(), [{"id": 1}])
                cat.close()
        os.remove(os.path.join(self.home, ".pyiceberg.yaml"))
        with mock.patch.dict(os.environ, {"PYICEBERG_CATALOG__SETUP__URI": a}):
            self.assertEqual(self.tables("setup"), [("a", "t")])
            # Another name keeps its own rows: none.
            with mock.patch.dict(os.environ, {"PYICEBERG_CATALOG__OTHER__URI": a}):
                self.assertEqual(self.tables("other"), [])

    def test_warehouse_catalog(self):
        wh = os.path.join(self.root, "warehouse")
        self.write(self.cwd, f"catalog:\n  lake:\n    type: warehouse\n    warehouse: {wh}\n")
        cat = floe.load_catalog("lake")
        cat.create_namespace("db")
        cat.create_table("db.events", SCHEMA).append([{"id": 7}])
        cat.close()
        self.assertTrue(os.path.isdir(os.path.join(wh, "db", "events", "metadata")))
        self.assertEqual(self.tables("LAKE"), [("db", "events")])

    def test_file_precedence(self):
        a, b, c = self.sqlite("a"), self.sqlite("b"), self.sqlite("c")
        entry = "catalog:\n  setup:\n    uri: {}\n"
        self.write(self.cwd, entry.format(c))
        self.assertEqual(self.tables("setup"), [("c", "t")])
        self.write(self.home, entry.format(b))
        self.assertEqual(self.tables("setup"), [("b", "t")])
        self.write(self.pyhome, entry.format(a))
        self.assertEqual(self.tables("setup"), [("b", "t")])  # PYICEBERG_HOME unset
        with mock.patch.dict(os.environ, {"PYICEBERG_HOME": self.pyhome}):
            self.assertEqual(self.tables("setup"), [("a", "t")])
            # Only the first file is read: a catalog the home file alone
            # has is not found.
            self.write(self.home, entry.format(b) + "  homeonly:\n    uri: x\n")
            with self.assertRaises(FloeError) as cm:
                floe.load_catalog("homeonly")
            self.assertEqual(cm.exception.code, Status.NOT_FOUND)
            self.assertIn(os.path.join(self.pyhome, ".pyiceberg.yaml"), str(cm.exception))
            self.assertIn('"homeonly"', str(cm.exception))

    def test_variables_over_file_and_explicit_over_variables(self):
        a, b, c = self.sqlite("a"), self.sqlite("b"), self.sqlite("c")
        self.write(self.home, f"catalog:\n  setup:\n    uri: {a}\n")
        self.assertEqual(self.tables("setup"), [("a", "t")])
        with mock.patch.dict(os.environ, {"PYICEBERG_CATALOG__SETUP__URI": b}):
            self.assertEqual(self.tables("setup"), [("b", "t")])
            self.assertEqual(self.tables("setup", uri=c), [("c", "t")])
            self.assertEqual(self.tables("setup", uri=None), [("b", "t")])
        with mock.patch.dict(os.environ, {"PYICEBERG_CATALOG__SETUP__URI": ""}):
            self.assertEqual(self.tables("setup"), [("a", "t")])

    def test_floe_catalog(self):
        a = self.sqlite("a")
        wh = os.path.join(self.root, "wh2")
        with mock.patch.dict(os.environ, {"FLOE_CATALOG": wh}):
            cat = floe.load_catalog()
            cat.create_namespace("w")
            cat.close()
            self.assertTrue(os.path.isdir(os.path.join(wh, "w")))
            # A configured uri wins over it.
            self.write(self.home, f"catalog:\n  setup:\n    uri: {a}\n")
            self.assertEqual(self.tables("setup"), [("a", "t")])
        with mock.patch.dict(os.environ, {"FLOE_CATALOG": "setup"}):
            # Naming a configured catalog, it is the default one.
            self.assertEqual(self.tables(), [("a", "t")])

    def test_errors_name_file_and_catalog_without_secrets(self):
        self.write(self.home, "catalog:\n  pg:\n    uri: thrift://user:hunter2@meta:9083\n"
                              "    credential: id:s3cr#t\n  nouri:\n    token: topsecret\n")
        path = os.path.join(self.home, ".pyiceberg.yaml")
        for name, code in [("pg", Status.INVALID_ARGUMENT), ("nouri", Status.INVALID_ARGUMENT), ("missing", Status.NOT_FOUND)]:
            with self.subTest(name), self.assertRaises(FloeError) as cm:
                floe.load_catalog(name)
            self.assertEqual(cm.exception.code, code)
            self.assertIn(f'"{name}"', str(cm.exception))
            for s in SECRETS:
                self.assertNotIn(s, str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            floe.load_catalog("missing")
        self.assertIn(path, str(cm.exception))
        self.assertIn("nouri, pg", str(cm.exception))
        self.write(self.home, "catalog:\n  pg:\n    uri: sqlite:///x.db\n    credential: \"id:topsecret\n")
        for use_pyyaml in READERS:
            with mock.patch.object(_yaml, "_pyyaml", _yaml._pyyaml if use_pyyaml else None), \
                    self.assertRaises(FloeError) as cm:
                floe.load_catalog("pg")
            self.assertEqual(cm.exception.code, Status.INVALID_ARGUMENT)
            self.assertIn(path, str(cm.exception))
            self.assertRegex(str(cm.exception), r"line [45]:")
            self.assertNotIn("topsecret", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
