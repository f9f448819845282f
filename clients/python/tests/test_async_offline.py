"""The async client (cardcat.AsyncClient) against the stub server of test_offline: the same requests as the
sync client's, a 429 waited out with asyncio.sleep (never in a worker thread), the same errors, the ETag
cache, the page iterators and the bulk download."""

import asyncio
import gzip
import hashlib
import inspect
import os
import tempfile
import unittest
from typing import Any, Dict, List

import cardcat
from cardcat import _async_operations, _operations
from test_offline import JSON, LIMITS, Stub, body

KEY = "pk_test_" + "a" * 32


class AsyncOffline(unittest.IsolatedAsyncioTestCase):
    stub: Stub

    @classmethod
    def setUpClass(cls) -> None:
        cls.stub = Stub()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.stub.close()

    def setUp(self) -> None:
        self.stub.answers, self.stub.requests = [], []
        self.waits: List[float] = []

        async def sleep(seconds: float) -> None:
            self.waits.append(seconds)

        self.client = cardcat.AsyncClient(KEY, self.stub.url, retries=2)
        self.client._sleep = sleep
        self.client.sync._sleep = self.fail  # the sync client never waits: the event loop does

    async def test_request(self) -> None:
        card = {"id": "dbs_0123456789abcdef", "card_info": {"name": "x"}}
        self.stub.answers = [(200, dict(JSON, **LIMITS), body(card))]
        self.assertEqual(await self.client.dbs.get_card("dbs_0123456789abcdef"), card)
        method, path, headers = self.stub.requests[0]
        self.assertEqual((method, path), ("GET", "/dbs/cards/dbs_0123456789abcdef"))
        self.assertEqual(headers["x-api-key"], KEY)
        assert self.client.last_response is not None and self.client.rate_limit is not None
        self.assertEqual((self.client.last_response.status, self.client.rate_limit.remaining_hour), (200, 7))

    async def test_base_game_routes(self) -> None:
        self.stub.answers = [(200, JSON, body({})), (200, JSON, body({}))]
        await self.client.pkm.get_set_cards("BS 2", language="en")
        await self.client.game("mtg").get_set_cards("WHO")
        self.assertEqual([r[1] for r in self.stub.requests], ["/sets/BS%202?language=en", "/mtg/sets/WHO"])

    async def test_429_waited_with_asyncio_sleep(self) -> None:
        limited = (429, dict(JSON, **LIMITS, **{"Retry-After": "7"}),
                   body({"error": "Rate limit exceeded", "message": "Wait.", "limits": {}}))
        ok = (200, JSON, body({"success": True, "data": [], "total": 0}))
        self.stub.answers = [limited, ok]
        self.assertEqual((await self.client.dbs.list_sets())["total"], 0)
        self.assertEqual(self.waits, [7.0])
        self.stub.answers = [limited, limited, limited]
        with self.assertRaises(cardcat.RateLimited) as cm:
            await self.client.dbs.list_sets()
        self.assertEqual((cm.exception.retry_after, self.waits), (7, [7.0, 7.0, 7.0]))
        assert self.client.last_response is not None
        self.assertEqual(self.client.last_response.status, 429)

    async def test_same_errors(self) -> None:
        self.stub.answers = [(404, JSON, body({"error": "Card not found", "message": "No card.",
                                                "did_you_mean": "/cards/pkm_0123456789abcdef"}))]
        with self.assertRaises(cardcat.NotFound) as cm:
            await self.client.dbs.get_card("pkm_0123456789abcdef")
        self.assertEqual((cm.exception.error, cm.exception.did_you_mean),
                         ("Card not found", "/cards/pkm_0123456789abcdef"))
        self.stub.answers = [(304, {"ETag": '"abc"'}, b"")]
        with self.assertRaises(cardcat.NotModified):
            await self.client.dbs.list_sets(if_none_match='"abc"')

    async def test_cache_revalidates(self) -> None:
        client = cardcat.AsyncClient(KEY, self.stub.url, cache=True)
        sets = {"success": True, "data": [], "total": 0}
        self.stub.answers = [(200, dict(JSON, ETag='"t1"'), body(sets)), (304, {"ETag": '"t1"'}, b"")]
        self.assertEqual(await client.dbs.list_sets(), sets)
        self.assertEqual(await client.dbs.list_sets(), sets)
        self.assertEqual(self.stub.requests[1][2]["if-none-match"], '"t1"')
        assert client.last_response is not None
        self.assertTrue(client.last_response.from_cache)

    async def test_pages(self) -> None:
        def page(n: int, total_pages: int) -> Any:
            return (200, JSON, body({"query": "x", "results": [{"id": f"c{n}"}], "metadata": {},
                                     "pagination": {"page": n, "limit": 1, "total": total_pages,
                                                    "total_pages": total_pages}}))

        self.stub.answers = [page(1, 3), page(2, 3), page(3, 3)]
        ids = [card["id"] async for card in self.client.op.iter_search_cards("x", page_size=1)]
        self.assertEqual(ids, ["c1", "c2", "c3"])
        self.assertEqual(len(self.stub.requests), 3)

    async def test_bulk_file_streamed(self) -> None:
        data = gzip.compress(b'{"id": "dbs_0123456789abcdef"}\n' * 1000)
        tag = hashlib.sha256(data).hexdigest()
        self.stub.answers = [(200, {"Content-Type": "application/gzip", "ETag": f'"{tag}"'}, data),
                             (304, {"ETag": f'"{tag}"'}, b"")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cards.jsonl.gz")
            got = await self.client.dbs.download_bulk_file("cards.jsonl.gz", path, chunk_size=1024)
            self.assertEqual((got.sha256, got.size, got.downloaded), (tag, len(data), True))
            again = await self.client.dbs.download_bulk_file("cards.jsonl.gz", path)
            self.assertFalse(again.downloaded)
        self.assertEqual(self.stub.requests[1][2]["if-none-match"], f'"{tag}"')

    async def test_tasks_side_by_side(self) -> None:
        """Requests of several tasks run at once."""
        self.stub.answers = [(200, JSON, body({"status": "healthy"})) for _ in range(5)]
        answers = await asyncio.gather(*(self.client.get_health() for _ in range(5)))
        self.assertEqual([a["status"] for a in answers], ["healthy"] * 5)


class Methods(unittest.TestCase):
    def test_same_methods_as_coroutines(self) -> None:
        """Every method of the sync operations has its coroutine, with the same signature."""
        pairs = [(_operations.ServiceOperations, _async_operations.AsyncServiceOperations),
                 (_operations.GameOperations, _async_operations.AsyncGameOperations),
                 (_operations.BaseGameOperations, _async_operations.AsyncBaseGameOperations)]
        for sync, coro in pairs:
            names = {n for n, v in vars(sync).items() if callable(v) and not n.startswith("_")}
            self.assertEqual(names, {n for n, v in vars(coro).items() if callable(v) and not n.startswith("_")})
            for name in names:
                self.assertTrue(inspect.iscoroutinefunction(getattr(coro, name)), name)
                self.assertEqual(inspect.signature(getattr(sync, name)), inspect.signature(getattr(coro, name)), name)
        helpers: Dict[str, Any] = {n: v for n, v in vars(cardcat.GameClient).items() if not n.startswith("_")}
        for name in helpers:
            fn = getattr(cardcat.AsyncGameClient, name)
            self.assertTrue(inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(fn), name)


if __name__ == "__main__":
    unittest.main()
