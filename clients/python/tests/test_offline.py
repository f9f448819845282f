"""What the client does that the sample server cannot show: a stub server on a loopback port answers what a
test scripts (a 503 then a 200, a redirect, a gzip body, a body that is no JSON)."""

import datetime
import email.message
import gzip
import json
import os
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple
from unittest import mock

import cardcat
from cardcat._client import _query_value

Answer = Tuple[int, Dict[str, str], bytes]


class Stub:
    """A server that answers the scripted answers in turn and records the requests."""

    def __init__(self) -> None:
        self.answers: List[Answer] = []
        self.requests: List[Tuple[str, str, Dict[str, str]]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stub.requests.append(("GET", self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, headers, body = stub.answers.pop(0)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


JSON = {"Content-Type": "application/json; charset=utf-8"}
LIMITS = {"X-RateLimit-Limit-Hour": "100", "X-RateLimit-Remaining-Hour": "7",
          "X-RateLimit-Limit-Day": "1000", "X-RateLimit-Remaining-Day": "907"}


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


class Offline(unittest.TestCase):
    stub: Stub

    @classmethod
    def setUpClass(cls) -> None:
        cls.stub = Stub()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.stub.close()

    def setUp(self) -> None:
        self.stub.answers, self.stub.requests = [], []
        self.client = cardcat.Client("pk_test_" + "a" * 32, self.stub.url)
        self.waits: List[float] = []
        self.client._sleep = self.waits.append

    def test_retry_503_then_200(self) -> None:
        busy = (503, dict(JSON, **{"Retry-After": "2"}),
                body({"error": "Search temporarily unavailable", "message": "Too many searches."}))
        ok = (200, dict(JSON, **LIMITS), body({"success": True, "data": [], "total": 0}))
        self.stub.answers = [busy, ok]
        with self.assertRaises(cardcat.ServiceUnavailable) as cm:
            self.client.dbs.list_sets()
        self.assertEqual((cm.exception.retry_after, self.waits), (2, []), "no retry by default")
        self.stub.answers = [busy, busy, ok]
        retrying = cardcat.Client("pk_test_" + "a" * 32, self.stub.url, retries=3)
        retrying._sleep = self.waits.append
        self.assertEqual(retrying.dbs.list_sets()["total"], 0)
        self.assertEqual(self.waits, [2.0, 2.0])
        assert retrying.rate_limit is not None
        self.assertEqual(retrying.rate_limit.remaining_hour, 7)

    def test_request(self) -> None:
        self.stub.answers = [(200, JSON, body({"since": "x", "until": "y", "changed": [],
                                              "pagination": {"page": 1, "limit": 5, "total": 0, "total_pages": 0}}))]
        since = datetime.datetime(2026, 1, 31, 7, 0, 0, 500000, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
        self.client.op.list_changes(since, limit=5)
        method, path, headers = self.stub.requests[0]
        self.assertEqual(path, "/op/changes?since=2026-01-31T06%3A00%3A00.500000Z&limit=5")
        self.assertEqual(headers["x-api-key"], "pk_test_" + "a" * 32)
        self.assertEqual(headers["accept-encoding"], "gzip")
        self.assertTrue(headers["user-agent"].startswith("cardcat-python/"))

    def test_base_game_routes(self) -> None:
        self.stub.answers = [(200, JSON, body({})), (200, JSON, body({}))]
        self.client.pkm.get_set_cards("BS 2", language="en")
        self.client.mtg.get_set_cards("WHO")
        self.assertEqual([r[1] for r in self.stub.requests], ["/sets/BS%202?language=en", "/mtg/sets/WHO"])

    def test_gzip(self) -> None:
        card = {"id": "dbs_0123456789abcdef", "card_info": {"name": "x" * 2000}}
        self.stub.answers = [(200, dict(JSON, **{"Content-Encoding": "gzip"}), gzip.compress(body(card)))]
        self.assertEqual(self.client.dbs.get_card("dbs_0123456789abcdef"), card)

    def test_error_body_that_is_no_json(self) -> None:
        self.stub.answers = [(502, {"Content-Type": "text/html"}, b"<html>Bad gateway</html>")]
        with self.assertRaises(cardcat.ServerError) as cm:
            self.client.dbs.list_sets()
        self.assertEqual((cm.exception.status, cm.exception.error), (502, "HTTP 502"))
        self.assertIn("Bad gateway", cm.exception.message)

    def test_redirect_not_followed(self) -> None:
        self.stub.answers = [(301, {"Location": "http://example.invalid/"}, b"")]
        with self.assertRaises(cardcat.APIError) as cm:
            self.client.dbs.list_sets()
        self.assertEqual(cm.exception.status, 301)
        self.assertEqual(len(self.stub.requests), 1)

    def test_unhealthy_is_an_answer(self) -> None:
        health = {"status": "unhealthy", "message": "Critical services unavailable: catalogue"}
        self.stub.answers = [(503, JSON, body(health))]
        self.assertEqual(self.client.get_health(), health)
        self.assertNotIn("x-api-key", self.stub.requests[0][2], "no key to a public route")


class Parts(unittest.TestCase):
    def test_query_values(self) -> None:
        self.assertEqual(_query_value(["a", "b"]), "a,b")
        self.assertEqual(_query_value(i for i in ("c", "d")), "c,d")
        self.assertEqual(_query_value(True), "true")
        self.assertEqual(_query_value(datetime.datetime(2026, 1, 31, 6)), "2026-01-31T06:00:00Z")
        self.assertEqual(_query_value(7), "7")

    def test_rate_limit_headers(self) -> None:
        h = email.message.Message()
        for k, v in LIMITS.items():
            h[k] = v
        self.assertEqual(cardcat.RateLimit.from_headers(h), cardcat.RateLimit(100, 7, 1000, 907, None))
        h["Retry-After"] = "Wed, 21 Oct 2015 07:28:00 GMT"  # the HTTP-date form: in the past
        self.assertEqual(cardcat.RateLimit.from_headers(h), cardcat.RateLimit(100, 7, 1000, 907, 0))
        del h["X-RateLimit-Limit-Day"]
        self.assertIsNone(cardcat.RateLimit.from_headers(h))

    def test_key_and_server_from_the_environment(self) -> None:
        env = {"CARDCAT_KEY": "pk_live_" + "k" * 32, "CARDCAT_BASE_URL": "https://cards.example/"}
        with mock.patch.dict(os.environ, env, clear=False):
            os.environ.pop("CARDCAT_API_KEY", None)
            client = cardcat.Client()
            self.assertEqual((client.api_key, client.base_url), (env["CARDCAT_KEY"], "https://cards.example"))
            self.assertNotIn("k" * 32, repr(client))
            os.environ["CARDCAT_API_KEY"] = "pk_test_" + "t" * 32
            self.assertEqual(cardcat.Client().api_key, "pk_test_" + "t" * 32)
            self.assertEqual(cardcat.Client("").api_key, "")
        with self.assertRaises(ValueError):
            cardcat.Client("", "localhost:8080")

    def test_memory_cache(self) -> None:
        cache = cardcat.MemoryCache(max_entries=2, max_body_bytes=10)
        self.assertIs(cardcat.Client("", "http://localhost:8080", cache=cache).cache, cache)
        self.assertIsInstance(cardcat.Client("", "http://localhost:8080", cache=True).cache, cardcat.MemoryCache)
        self.assertIsNone(cardcat.Client("", "http://localhost:8080", cache=False).cache)
        for url in ("a", "b", "c"):
            cache.set(url, cardcat.CachedAnswer('"1"', "application/json", b"{}"))
        cache.set("big", cardcat.CachedAnswer('"2"', "application/json", b"x" * 11))
        self.assertEqual((cache.get("a"), len(cache)), (None, 2))
        self.assertIsNotNone(cache.get("c"))
        self.assertIsNone(cache.get("big"))


if __name__ == "__main__":
    unittest.main()
