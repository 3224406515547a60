"""Builds libfloe.so from the repository this package sits in and ships it
inside the package (floe/libfloe.so), so an installed floe needs neither
FLOE_LIBRARY nor a build tree. Everything else is in pyproject.toml.

The wheel is platform-specific (it holds a shared library) but has no
Python extension: any CPython of the platform loads it through ctypes.
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def header_version():
    with open(os.path.join(ROOT, "include", "floe.h")) as f:
        m = re.search(r'#define FLOE_VERSION_STRING "([^"]+)"', f.read())
    if not m:
        raise RuntimeError("no FLOE_VERSION_STRING in include/floe.h")
    return m.group(1)


class BuildWithLibrary(build_py):
    def build_packages(self):
        super().build_packages()
        version = header_version()
        ns = {}
        with open(os.path.join(HERE, "floe", "_version.py")) as f:
            exec(f.read(), ns)
        if ns["__version__"] != version:
            raise RuntimeError(
                f"floe/_version.py says {ns['__version__']}, include/floe.h {version}: change both"
            )
        # Absolute: go runs in the repository root, not here.
        out = os.path.abspath(os.path.join(self.build_lib, "floe", "libfloe.so"))
        prebuilt = os.environ.get("FLOE_PREBUILT_LIBRARY")
        if prebuilt:
            shutil.copyfile(prebuilt, out)
            return
        go = shutil.which("go") or "/usr/local/go/bin/go"
        env = dict(os.environ, CGO_ENABLED="1")
        ldflags = (
            "-extldflags=-Wl,--version-script="
            + os.path.join(ROOT, "capi", "floe.map")
            + ",-soname,libfloe.so"
        )
        subprocess.check_call(
            [go, "build", "-buildmode=c-shared", "-o", out, "-ldflags=" + ldflags, "./capi"],
            cwd=ROOT,
            env=env,
        )
        header = os.path.abspath(os.path.join(self.build_lib, "floe", "libfloe.h"))
        if os.path.exists(header):
            os.remove(header)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
