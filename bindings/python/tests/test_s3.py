"""Tables on S3 through the Python binding, against a real S3 server:
versitygw (its posix backend) started on 127.0.0.1 for this module.

The server is found as internal/s3test finds it: $FLOE_VERSITYGW, then
PATH, then $(go env GOPATH)/bin, then /work/bin. Without it the tests skip,
unless FLOE_REQUIRE_S3=1 (as CI sets), which makes a missing server a
failure. The posix backend stores an object as a file at <root>/<bucket>/
<key>, so fixtures are put in place by copying them there, and what floe
wrote can be checked on disk."""

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from object_stores import ROWS, SCHEMA, append_replace_and_retry, find_server, free_port, sort_key  # noqa: E402
from fixtures import FIXTURES, fixture  # noqa: E402

BUCKET = "floe-py"
ACCESS_KEY = "floepyaccess"
SECRET_KEY = "floepysecret0123456789"


class S3Server:
    """A versitygw for a test class: cls.endpoint, cls.s3 (floe's "s3"
    options), cls.root (its posix backend's directory), put_fixture."""

    @classmethod
    def setUpClass(cls):
        binary = find_server("versitygw", "FLOE_VERSITYGW", gopath=True, extra=["/work/bin/versitygw"])
        if binary is None:
            why = ("versitygw not found ($FLOE_VERSITYGW, PATH, $(go env GOPATH)/bin, /work/bin); install it with "
                   "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0")
            if os.environ.get("FLOE_REQUIRE_S3") == "1":
                raise RuntimeError(why + " (FLOE_REQUIRE_S3=1)")
            raise unittest.SkipTest(why)
        cls.root = tempfile.mkdtemp(prefix="floe-py-s3-")
        # A directory under the root is a bucket the root user may use.
        os.mkdir(os.path.join(cls.root, BUCKET))
        env = dict(os.environ, ROOT_ACCESS_KEY_ID=ACCESS_KEY, ROOT_SECRET_ACCESS_KEY=SECRET_KEY)
        last = None
        for _ in range(3):  # a free port can be taken between probe and bind
            port = free_port()
            cls.endpoint = f"http://127.0.0.1:{port}"
            cls.server = subprocess.Popen([binary, "--port", f"127.0.0.1:{port}", "--quiet", "posix", cls.root],
                                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            last = cls._wait_answering()
            if last is None:
                break
            cls._stop()
        else:
            shutil.rmtree(cls.root, ignore_errors=True)
            raise RuntimeError(f"versitygw did not start: {last}")
        cls.s3 = {"endpoint": cls.endpoint, "region": "us-east-1", "access_key_id": ACCESS_KEY,
                  "secret_access_key": SECRET_KEY, "path_style": True}

    @classmethod
    def _wait_answering(cls):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if cls.server.poll() is not None:
                return "exited: " + cls.server.stderr.read().decode("utf-8", "replace")
            try:
                urllib.request.urlopen(cls.endpoint + "/", timeout=1).close()
                return None
            except urllib.error.HTTPError:
                return None  # any HTTP answer: it is serving
            except OSError:
                time.sleep(0.02)
        return "no answer within 30 s"

    @classmethod
    def _stop(cls):
        cls.server.kill()
        cls.server.wait()
        cls.server.stderr.close()

    @classmethod
    def tearDownClass(cls):
        cls._stop()
        shutil.rmtree(cls.root, ignore_errors=True)

    def on_disk(self, *key):
        return os.path.join(self.root, BUCKET, *key)

    def put_fixture(self, name):
        """Copies a fixture into the bucket and returns its S3 location and
        location map, beside the fixture itself."""
        fx = fixture(name)
        src = os.path.join(FIXTURES, name.split("/")[0])
        prefix = f"s3://{BUCKET}/fixtures/{name.split('/')[0]}"
        if not os.path.exists(self.on_disk("fixtures", name.split("/")[0])):
            shutil.copytree(src, self.on_disk("fixtures", name.split("/")[0]))
        location = prefix + fx.location[len(src):]
        return fx, location, {p: prefix for p in fx.location_map}


class S3Test(S3Server, unittest.TestCase):
    def test_fixtures_read_as_locally(self):
        for name in ("impala_test_default_part", "impala_iceberg_v2_partitioned_position_deletes",
                     "impala_iceberg_v3_deletion_vectors"):
            with self.subTest(name):
                fx, location, location_map = self.put_fixture(name)
                with fx.open() as local, floe.Table.open(location, location_map=location_map, s3=self.s3) as remote:
                    want = sorted(local.scan().to_pylist(), key=sort_key)
                    self.assertTrue(want)
                    self.assertEqual(sorted(remote.scan().to_pylist(), key=sort_key), want)
                    # Tasks carry the S3 settings to wherever they are read.
                    tasks = [pickle.loads(pickle.dumps(t)) for t in remote.scan(split_size=256).plan_tasks()]
                    got = [row for t in tasks for row in t.to_pylist()]
                    self.assertEqual(sorted(got, key=sort_key), want)

    def test_create_append_replace_and_retry(self):
        location = f"s3://{BUCKET}/wh/db/events"
        t, _ = append_replace_and_retry(self, location, s3=self.s3)
        # What floe wrote, as the server stored it.
        with open(self.on_disk("wh", "db", "events", "metadata", "version-hint.text")) as f:
            self.assertEqual(f.read(), "3")
        self.assertEqual(sorted(os.listdir(self.on_disk("wh", "db", "events", "data"))),
                         ["j=-1", "j=10", "j=5", "j=null"])
        with self.assertRaises(FloeError) as cm:
            floe.Table.create(location, SCHEMA, s3=self.s3)
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        t.close()

    def test_warehouse_dataset_names(self):
        warehouse = f"s3://{BUCKET}/lake"
        with floe.Table.create("sales.orders", SCHEMA, warehouse=warehouse, s3=self.s3) as t:
            t.append(ROWS[:2])
        self.assertTrue(os.path.exists(self.on_disk("lake", "sales", "orders", "metadata", "v2.metadata.json")))
        with floe.Table.open("sales.orders", warehouse=warehouse, s3=self.s3) as t:
            self.assertEqual(sorted(t.scan().to_pylist(), key=sort_key), ROWS[:2])

    def test_bad_settings_fail_clearly(self):
        location = f"s3://{BUCKET}/nowhere"
        cases = [
            ({"s3": {"endpont": self.endpoint}}, Status.INVALID_ARGUMENT, "endpont"),
            ({"s3": {"endpoint": "127.0.0.1:1"}}, Status.INVALID_ARGUMENT, "endpoint"),
            ({"s3": {"access_key_id": "only-half"}}, Status.INVALID_ARGUMENT, "secret_access_key"),
            ({"properties": {"s3.endpoint": self.endpoint}}, Status.UNSUPPORTED, "s3.endpoint"),
        ]
        for options, code, word in cases:
            with self.subTest(options):
                with self.assertRaises(FloeError) as cm:
                    floe.Table.open(location, **options)
                self.assertEqual(cm.exception.code, code)
                self.assertIn(word, cm.exception.message)
        # Wrong credentials: the server refuses, and the error names the object.
        wrong = dict(self.s3, secret_access_key="not-the-secret", max_attempts=1)
        self.put_fixture("impala_test_default_part")
        with self.assertRaises(FloeError) as cm:
            floe.Table.open(f"s3://{BUCKET}/fixtures/impala_test_default_part", s3=wrong)
        self.assertIn(f"s3://{BUCKET}/fixtures/impala_test_default_part", cm.exception.message)
        # A table that is not there is NOT_FOUND.
        with self.assertRaises(FloeError) as cm:
            floe.Table.open(location, s3=self.s3)
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)


if __name__ == "__main__":
    unittest.main()
