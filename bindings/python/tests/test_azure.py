"""Tables on Azure Blob Storage through the Python binding, against a real
Azure server: Azurite's blob service started on 127.0.0.1 for this module.

Azurite is found as internal/azuritetest finds it: $FLOE_AZURITE, then
azurite-blob on PATH, then ~/.cache/floe/azurite-3.37.0 (where .ci/run
installs it with npm). Without it the tests skip, unless
FLOE_REQUIRE_AZURE=1 (as CI sets), which makes a missing server a failure.
Fixtures are copied into the container with requests signed by Azurite's
well-known development account's key."""

import base64
import hashlib
import hmac
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from email.utils import formatdate

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import floe  # noqa: E402
from floe import FloeError, Status  # noqa: E402

from object_stores import ROWS, SCHEMA, append_replace_and_retry, find_server, free_port, sort_key  # noqa: E402
from fixtures import FIXTURES, fixture  # noqa: E402

VERSION = "3.37.0"
ACCOUNT = "devstoreaccount1"
# Azurite's documented development key: not a secret.
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
CONTAINER = "floe-py"


class AzureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary = find_server("azurite-blob", "FLOE_AZURITE", cached=f"azurite-{VERSION}/node_modules/.bin/azurite-blob")
        if binary is None:
            why = (f"azurite-blob not found ($FLOE_AZURITE, PATH, ~/.cache/floe/azurite-{VERSION}); install it with "
                   f"npm install --prefix ~/.cache/floe/azurite-{VERSION} azurite@{VERSION}")
            if os.environ.get("FLOE_REQUIRE_AZURE") == "1":
                raise RuntimeError(why + " (FLOE_REQUIRE_AZURE=1)")
            raise unittest.SkipTest(why)
        cls.root = tempfile.mkdtemp(prefix="floe-py-azure-")
        last = None
        for _ in range(3):  # a free port can be taken between probe and bind
            port = free_port()
            cls.authority = f"127.0.0.1:{port}"
            cls.server = subprocess.Popen(
                [binary, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", cls.root,
                 "--skipApiVersionCheck", "--disableProductStyleUrl", "--disableTelemetry", "--silent"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            last = cls._wait_answering()
            if last is None:
                break
            cls._stop()
        else:
            shutil.rmtree(cls.root, ignore_errors=True)
            raise RuntimeError(f"azurite-blob did not start: {last}")
        cls.azure = {"account_name": ACCOUNT, "account_key": KEY, "blob_storage_authority": cls.authority,
                     "blob_storage_scheme": "http"}
        cls._create_container()
        cls.uploaded = set()

    @classmethod
    def _wait_answering(cls):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if cls.server.poll() is not None:
                return "exited: " + cls.server.stderr.read().decode("utf-8", "replace")
            try:
                urllib.request.urlopen(f"http://{cls.authority}/{ACCOUNT}?comp=list", timeout=1).close()
                return None
            except urllib.error.HTTPError:
                return None  # any HTTP answer: it is serving
            except OSError:
                time.sleep(0.05)
        return "no answer within 60 s"

    @classmethod
    def _signed(cls, method, path, query="", body=b"", headers=None):
        """Sends a request signed with the account's shared key: floe has no
        call to make a container or copy a file as it is, and the
        signature is short to write."""
        date = formatdate(usegmt=True)
        ms = {"x-ms-date": date, "x-ms-version": "2021-08-06"}
        ms.update(headers or {})
        canonical_headers = "\n".join(f"{k}:{v}" for k, v in sorted(ms.items()))
        quoted = urllib.parse.quote(path)
        resource = f"/{ACCOUNT}/{ACCOUNT}/{quoted}"
        if query:
            resource += "".join(f"\n{k}:{v}" for k, v in sorted(p.split("=", 1) for p in query.split("&")))
        content_type = "application/octet-stream"
        string_to_sign = "\n".join([method, "", "", str(len(body)) if body else "", "", content_type,
                                    "", "", "", "", "", "", canonical_headers, resource])
        sig = base64.b64encode(hmac.new(base64.b64decode(KEY), string_to_sign.encode(), hashlib.sha256).digest())
        url = f"http://{cls.authority}/{ACCOUNT}/{quoted}" + (f"?{query}" if query else "")
        req = urllib.request.Request(url, method=method, data=body, headers=dict(
            ms, Authorization=f"SharedKey {ACCOUNT}:{sig.decode()}", **{"Content-Type": content_type}))
        urllib.request.urlopen(req, timeout=30).close()

    @classmethod
    def _create_container(cls):
        cls._signed("PUT", CONTAINER, "restype=container")

    def upload(self, local_dir, prefix):
        """Copies every file under local_dir to the container under prefix."""
        for dirpath, _, names in os.walk(local_dir):
            for name in names:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, local_dir).replace(os.sep, "/")
                with open(path, "rb") as f:
                    self._signed("PUT", f"{CONTAINER}/{prefix}/{rel}", body=f.read(),
                                 headers={"x-ms-blob-type": "BlockBlob"})

    @classmethod
    def _stop(cls):
        cls.server.kill()
        cls.server.wait()
        cls.server.stderr.close()

    @classmethod
    def tearDownClass(cls):
        cls._stop()
        shutil.rmtree(cls.root, ignore_errors=True)

    def location(self, *parts):
        return f"abfs://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net/" + "/".join(parts)

    def put_fixture(self, name):
        """Copies a fixture into the container and returns its Azure
        location and location map, beside the fixture itself."""
        fx = fixture(name)
        top = name.split("/")[0]
        src = os.path.join(FIXTURES, top)
        if top not in self.uploaded:
            self.upload(src, f"fixtures/{top}")
            self.uploaded.add(top)
        prefix = self.location("fixtures", top)
        location = prefix + fx.location[len(src):]
        return fx, location, {p: prefix for p in fx.location_map}

    def test_fixtures_read_as_locally(self):
        for name in ("impala_test_default_part", "impala_iceberg_v2_partitioned_position_deletes",
                     "impala_iceberg_v3_deletion_vectors"):
            with self.subTest(name):
                fx, location, location_map = self.put_fixture(name)
                with fx.open() as local, floe.Table.open(location, location_map=location_map, azure=self.azure) as remote:
                    want = sorted(local.scan().to_pylist(), key=sort_key)
                    self.assertTrue(want)
                    self.assertEqual(sorted(remote.scan().to_pylist(), key=sort_key), want)
                    # Tasks carry the Azure settings to wherever they are read.
                    tasks = [pickle.loads(pickle.dumps(t)) for t in remote.scan(split_size=256).plan_tasks()]
                    got = [row for t in tasks for row in t.to_pylist()]
                    self.assertEqual(sorted(got, key=sort_key), want)

    def test_create_append_replace_and_retry_in_every_spelling(self):
        location = self.location("wh", "db", "events")
        wasbs = location.replace("abfs://", "wasbs://").replace(".dfs.", ".blob.")
        t, _ = append_replace_and_retry(self, location, reopen_at=wasbs, azure=self.azure)
        with self.assertRaises(FloeError) as cm:
            floe.Table.create(location, SCHEMA, azure=self.azure)
        self.assertEqual(cm.exception.code, Status.CONFLICT)
        t.close()

    def test_connection_string_and_warehouse(self):
        conn = (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};"
                f"BlobEndpoint=http://{self.authority}/{ACCOUNT};")
        warehouse = self.location("lake")
        with floe.Table.create("sales.orders", SCHEMA, warehouse=warehouse, azure={"connection_string": conn}) as t:
            t.append(ROWS[:2])
        with floe.Table.open("sales.orders", warehouse=warehouse, azure=self.azure) as t:
            self.assertEqual(sorted(t.scan().to_pylist(), key=sort_key), ROWS[:2])

    def test_bad_settings_fail_clearly_and_keep_the_key_out(self):
        location = self.location("nowhere")
        wrong = "A" * 86 + "=="
        cases = [
            ({"azure": {"acount_name": ACCOUNT}}, Status.INVALID_ARGUMENT, "acount_name"),
            ({"azure": {"account_key": wrong}}, Status.INVALID_ARGUMENT, "account_name"),
            ({"azure": {"blob_storage_scheme": "ftp"}}, Status.INVALID_ARGUMENT, "blob_storage_scheme"),
        ]
        for options, code, word in cases:
            with self.subTest(options):
                with self.assertRaises(FloeError) as cm:
                    floe.Table.open(location, **options)
                self.assertEqual(cm.exception.code, code)
                self.assertIn(word, str(cm.exception))
                self.assertNotIn(wrong, str(cm.exception))
        # A wrong key: the server refuses; the message names the location,
        # never the key.
        bad = dict(self.azure, account_key=wrong)
        with self.assertRaises(FloeError) as cm:
            floe.Table.open(self.location("wh", "db", "events"), azure=bad)
        self.assertEqual(cm.exception.code, Status.UNAUTHORIZED)
        self.assertIn("403", str(cm.exception))
        self.assertNotIn(wrong, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
