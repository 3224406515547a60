"""Runs pyiceberg_flow.py (pyiceberg's getting-started flow with only the
imports changed) in a fresh process, its catalog configured as a pyiceberg
user configures one: by a .pyiceberg.yaml in $PYICEBERG_HOME, in the home
directory, or by PYICEBERG_CATALOG__DEFAULT__* variables."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "pyiceberg_flow.py")


def run_flow(workdir, env_extra, python=sys.executable, package_dir=os.path.dirname(HERE)):
    """The flow's process: a clean environment (no catalog variables from
    this one), HOME and the working directory in workdir."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYICEBERG_") and k not in ("FLOE_CATALOG", "FLOE_WAREHOUSE", "HOME")}
    env["HOME"] = os.path.join(workdir, "home")
    os.makedirs(env["HOME"], exist_ok=True)
    if package_dir:
        env["PYTHONPATH"] = package_dir
    env.update(env_extra)
    return subprocess.run([python, SCRIPT], cwd=workdir, env=env, capture_output=True, text=True, timeout=300)


def yaml_config(root):
    return ("catalog:\n"
            "  default:\n"
            "    type: sql\n"
            f"    uri: sqlite:///{root}/pyiceberg_catalog.db\n"
            f"    warehouse: file://{root}/warehouse\n")


# The flow appends and reads pandas frames, as pyiceberg's does: it runs
# where pandas is (Debian's python3: make test-dask, and the installed
# package's venv in installed_package.sh).
@unittest.skipUnless(importlib.util.find_spec("pandas"), "pandas is not installed for this python")
class PyicebergFlowTest(unittest.TestCase):
    def check(self, proc):
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("pyiceberg flow: ok (3 snapshots", proc.stdout)

    def test_with_a_pyiceberg_yaml_in_pyiceberg_home(self):
        with tempfile.TemporaryDirectory() as d:
            conf = os.path.join(d, "conf")
            os.makedirs(conf)
            with open(os.path.join(conf, ".pyiceberg.yaml"), "w") as f:
                f.write(yaml_config(d))
            self.check(run_flow(d, {"PYICEBERG_HOME": conf}))
            self.assertTrue(os.path.exists(os.path.join(d, "pyiceberg_catalog.db")))
            self.assertTrue(os.path.isdir(os.path.join(d, "warehouse")))

    def test_with_a_pyiceberg_yaml_in_the_home_directory(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "home"))
            with open(os.path.join(d, "home", ".pyiceberg.yaml"), "w") as f:
                f.write(yaml_config(d))
            self.check(run_flow(d, {}))

    def test_with_environment_variables(self):
        with tempfile.TemporaryDirectory() as d:
            self.check(run_flow(d, {"PYICEBERG_CATALOG__DEFAULT__TYPE": "sql",
                                    "PYICEBERG_CATALOG__DEFAULT__URI": f"sqlite:///{d}/pyiceberg_catalog.db",
                                    "PYICEBERG_CATALOG__DEFAULT__WAREHOUSE": f"file://{d}/warehouse"}))
            self.assertTrue(os.path.exists(os.path.join(d, "pyiceberg_catalog.db")))

    def test_without_a_catalog_it_fails(self):
        with tempfile.TemporaryDirectory() as d:
            proc = run_flow(d, {})
            self.assertNotEqual(proc.returncode, 0)
            self.assertIn("FloeError", proc.stderr)


if __name__ == "__main__":
    unittest.main()
