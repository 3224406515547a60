"""Tables on Google Cloud Storage through the Python binding, against a real
GCS server: fake-gcs-server (in memory) started on 127.0.0.1 for this
module, with the flags internal/gcstest starts it with.

fake-gcs-server is found as internal/gcstest finds it: $FLOE_FAKE_GCS_SERVER,
then fake-gcs-server on PATH, then ~/.cache/floe/fake-gcs-server-v1.56.1
(where .ci/run installs it), then $(go env GOPATH)/bin. Without it the
tests skip, unless FLOE_REQUIRE_GCS=1 (as CI sets), which makes a missing
server a failure. Fixtures are copied into a bucket through the server's
JSON API, and what floe wrote is checked through the same API."""

import http.server
import json
import os
import pickle
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(TESTS, ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from object_stores import ROWS, SCHEMA, append_replace_and_retry, find_server, free_port, sort_key  # noqa: E402
from fixtures import FIXTURES, all_fixtures  # noqa: E402

VERSION = "v1.56.1"
BUCKET = "floe-py"
PROJECT = "floe-test"
# A bearer token floe sends as it is; fake-gcs-server takes any. The tests
# check that no error message repeats it.
TOKEN = "ya29.floe-py-not-a-real-token-7c1e"


class GCSTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary = find_server("fake-gcs-server", "FLOE_FAKE_GCS_SERVER", cached=f"fake-gcs-server-{VERSION}/fake-gcs-server", gopath=True)
        if binary is None:
            why = (f"fake-gcs-server not found ($FLOE_FAKE_GCS_SERVER, PATH, ~/.cache/floe/fake-gcs-server-{VERSION}, "
                   f"$(go env GOPATH)/bin); install it with go install github.com/fsouza/fake-gcs-server@{VERSION}")
            if os.environ.get("FLOE_REQUIRE_GCS") == "1":
                raise RuntimeError(why + " (FLOE_REQUIRE_GCS=1)")
            raise unittest.SkipTest(why)
        last = None
        for _ in range(3):  # a free port can be taken between probe and bind
            port = free_port()
            cls.endpoint = f"http://127.0.0.1:{port}"
            cls.server = subprocess.Popen(
                [binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory",
                 "-external-url", cls.endpoint, "-public-host", f"127.0.0.1:{port}", "-log-level", "error"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            last = cls._wait_answering()
            if last is None:
                break
            cls._stop()
        else:
            raise RuntimeError(f"fake-gcs-server did not start: {last}")
        cls.gcs = {"service_host": cls.endpoint, "project_id": PROJECT}
        cls._request("POST", f"/storage/v1/b?project={PROJECT}", json.dumps({"name": BUCKET}).encode(),
                     "application/json")
        cls.uploaded = set()

    @classmethod
    def _wait_answering(cls):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if cls.server.poll() is not None:
                return "exited: " + cls.server.stderr.read().decode("utf-8", "replace")
            try:
                urllib.request.urlopen(f"{cls.endpoint}/storage/v1/b?project={PROJECT}", timeout=1).close()
                return None
            except OSError:  # HTTPError too: it lists buckets once it is ready
                time.sleep(0.02)
        return "no answer within 30 s"

    @classmethod
    def _request(cls, method, path, body=None, content_type="application/octet-stream"):
        req = urllib.request.Request(cls.endpoint + path, method=method, data=body,
                                     headers={"Content-Type": content_type} if body is not None else {})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.read()

    @classmethod
    def _stop(cls):
        cls.server.kill()
        cls.server.wait()
        cls.server.stderr.close()

    @classmethod
    def tearDownClass(cls):
        cls._stop()

    def upload(self, local_dir, prefix):
        """Copies every file under local_dir to the bucket under prefix,
        each as one media upload."""
        for dirpath, _, names in os.walk(local_dir):
            for name in names:
                path = os.path.join(dirpath, name)
                key = prefix + "/" + os.path.relpath(path, local_dir).replace(os.sep, "/")
                with open(path, "rb") as f:
                    self._request("POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name="
                                  + urllib.parse.quote(key, safe=""), f.read())

    def objects(self, prefix):
        """The object names under prefix, through the JSON API's listing."""
        names, page = [], None
        while True:
            query = {"prefix": prefix}
            if page:
                query["pageToken"] = page
            out = json.loads(self._request("GET", f"/storage/v1/b/{BUCKET}/o?" + urllib.parse.urlencode(query)))
            names += [o["name"] for o in out.get("items", [])]
            page = out.get("nextPageToken")
            if not page:
                return sorted(names)

    def read_object(self, key):
        return self._request("GET", f"/storage/v1/b/{BUCKET}/o/{urllib.parse.quote(key, safe='')}?alt=media")

    def location(self, *parts):
        return f"gs://{BUCKET}/" + "/".join(parts)

    def put_fixture(self, fx):
        """Copies a fixture into the bucket and returns its GCS location and
        location map."""
        top = fx.name.split("/")[0]
        src = os.path.join(FIXTURES, top)
        if top not in self.uploaded:
            self.upload(src, f"fixtures/{top}")
            self.uploaded.add(top)
        prefix = self.location("fixtures", top)
        return prefix + fx.location[len(src):], {p: prefix for p in fx.location_map}

    def test_every_fixture_reads_as_locally(self):
        fixtures = all_fixtures()
        self.assertGreaterEqual(len(fixtures), 16)
        for fx in fixtures:
            with self.subTest(fx.name):
                location, location_map = self.put_fixture(fx)
                with fx.open() as local, floe.Table.open(location, location_map=location_map, gcs=self.gcs) as remote:
                    want = sorted(local.scan().to_pylist(), key=sort_key)
                    self.assertTrue(want)
                    self.assertEqual(sorted(remote.scan().to_pylist(), key=sort_key), want)
                    # Tasks carry the GCS settings to wherever they are read.
                    tasks = [pickle.loads(pickle.dumps(t)) for t in remote.scan(split_size=256).plan_tasks()]
                    self.assertTrue(tasks)
                    got = [row for t in tasks for row in t.to_pylist()]
                    self.assertEqual(sorted(got, key=sort_key), want)

    def test_create_append_overwrite_and_retry(self):
        location = self.location("wh", "db", "events")
        t, _ = append_replace_and_retry(self, location, gcs=self.gcs)
        with floe.Table.open(location, gcs=self.gcs) as again:
            # Overwrite replaces every row; its retry commits nothing either.
            replaced = again.overwrite([{"i": 7, "j": 7}], token="step-3")
            self.assertEqual(again.overwrite([{"i": 7, "j": 7}], token="step-3"), replaced)
        with floe.Table.open(location, gcs=self.gcs) as again:
            self.assertEqual(again.scan().to_pylist(), [{"i": 7, "j": 7}])
            self.assertEqual(len(again.metadata["snapshots"]), 3)
        # What floe wrote, as the server stores it.
        prefix = "wh/db/events/"
        self.assertEqual(self.read_object(prefix + "metadata/version-hint.text"), b"4")
        partitions = {n[len(prefix + "data/"):].split("/")[0] for n in self.objects(prefix + "data/")}
        self.assertEqual(partitions, {"j=-1", "j=10", "j=5", "j=null", "j=7"})
        with self.assertRaises(FloeError) as cm:
            floe.Table.create(location, SCHEMA, gcs=self.gcs)
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        t.close()

    def test_warehouse_dataset_names(self):
        warehouse = self.location("lake")
        with floe.Table.create("sales.orders", SCHEMA, warehouse=warehouse, gcs=self.gcs) as t:
            t.append(ROWS[:2])
        self.assertIn("lake/sales/orders/metadata/v2.metadata.json", self.objects("lake/"))
        with floe.Table.open("sales.orders", warehouse=warehouse, gcs=self.gcs) as t:
            self.assertEqual(sorted(t.scan().to_pylist(), key=sort_key), ROWS[:2])
        # $FLOE_WAREHOUSE, read when the library loads: a process of its own.
        script = ("import json, sys, floe\n"
                  "with floe.Table.open('sales.orders', gcs=json.loads(sys.argv[1])) as t:\n"
                  "    print(json.dumps(t.scan().to_pylist()))\n")
        env = dict(os.environ, FLOE_WAREHOUSE=warehouse,
                   PYTHONPATH=os.pathsep.join([os.path.join(TESTS, ".."), os.environ.get("PYTHONPATH", "")]))
        out = subprocess.run([sys.executable, "-c", script, json.dumps(self.gcs)], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(sorted(json.loads(out.stdout), key=sort_key), ROWS[:2])

    def test_bad_settings_fail_clearly_and_keep_the_token_out(self):
        location = self.location("nowhere")
        cases = [
            ({"servce_host": self.endpoint, "oauth2_token": TOKEN}, Status.INVALID_ARGUMENT, "servce_host"),
            ({"service_host": self.endpoint, "oauth2_token": TOKEN, "chunk_size": 1000},
             Status.INVALID_ARGUMENT, "chunk_size"),
            ({"service_host": "ftp://127.0.0.1:1", "oauth2_token": TOKEN}, Status.INVALID_ARGUMENT, "service_host"),
            ({"service_host": self.endpoint, "oauth2_token": TOKEN, "max_attempts": -1},
             Status.INVALID_ARGUMENT, "max_attempts"),
            ({"anonymous": True, "oauth2_token": TOKEN}, Status.INVALID_ARGUMENT, "anonymous"),
        ]
        for gcs, code, word in cases:
            with self.subTest(gcs):
                with self.assertRaises(FloeError) as cm:
                    floe.Table.open(location, gcs=gcs)
                self.assertEqual(cm.exception.code, code)
                self.assertIn(word, str(cm.exception))
                self.assertNotIn(TOKEN, str(cm.exception))
        # A bucket that does not exist: NOT_FOUND, naming the location and
        # not the token, for a read and for a create.
        with_token = dict(self.gcs, oauth2_token=TOKEN)
        missing = "gs://no-such-bucket-floe/wh/t"
        with self.assertRaises(FloeError) as cm:
            floe.Table.open(missing, gcs=with_token)
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)
        self.assertIn("gs://no-such-bucket-floe/wh/t", str(cm.exception))
        self.assertNotIn(TOKEN, str(cm.exception))
        with self.assertRaises(FloeError) as cm:
            floe.Table.create(missing, SCHEMA, gcs=with_token)
        self.assertEqual(cm.exception.code, Status.NOT_FOUND)
        self.assertIn("no-such-bucket-floe", str(cm.exception))
        self.assertNotIn(TOKEN, str(cm.exception))
        # A server that is not there: the error names the location, not the
        # token, after max_attempts tries.
        gone = {"service_host": f"http://127.0.0.1:{free_port()}", "oauth2_token": TOKEN, "max_attempts": 1}
        with self.assertRaises(FloeError) as cm:
            floe.Table.open(self.location("wh", "db", "events"), gcs=gone)
        self.assertIn(self.location("wh", "db", "events"), str(cm.exception))
        self.assertNotIn(TOKEN, str(cm.exception))

    def test_refused_token_is_unauthorized(self):
        """A server that refuses the bearer token, as GCS answers one that
        expired: UNAUTHORIZED at once, naming the location, not the token.
        fake-gcs-server takes any token, so a stand-in answers 401."""
        seen = []

        class Refuse(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.headers.get("Authorization"))
                body = b'{"error": {"code": 401, "message": "Invalid Credentials"}}'
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_PUT = do_GET

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        gcs = {"service_host": f"http://127.0.0.1:{server.server_address[1]}", "oauth2_token": TOKEN}
        location = self.location("wh", "db", "events")
        for call in (lambda: floe.Table.open(location, gcs=gcs), lambda: floe.Table.create(location, SCHEMA, gcs=gcs)):
            seen.clear()
            with self.assertRaises(FloeError) as cm:
                call()
            self.assertEqual(cm.exception.code, Status.UNAUTHORIZED)
            self.assertIn(location, str(cm.exception))
            self.assertNotIn(TOKEN, str(cm.exception))
            # The token reached the server, once: a refusal is not retried.
            self.assertEqual(seen, [f"Bearer {TOKEN}"])


if __name__ == "__main__":
    unittest.main()
