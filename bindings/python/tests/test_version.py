import os
import re
import unittest

import floe

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class VersionTest(unittest.TestCase):
    def test_package_library_and_header_agree(self):
        with open(os.path.join(ROOT, "include", "floe.h")) as f:
            header = re.search(r'#define FLOE_VERSION_STRING "([^"]+)"', f.read()).group(1)
        self.assertEqual(floe.__version__, header)
        self.assertEqual(floe.version(), header)


if __name__ == "__main__":
    unittest.main()
