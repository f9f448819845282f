"""The client against a real ``cardcat serve`` on the bundled sample.

The Go test ``TestPythonClient`` (clients/python_test.go) starts the server and runs this suite, passing:

    CARDCAT_TEST_BASE_URL      the server
    CARDCAT_TEST_KEY           a Free account's key (100 requests an hour)
    CARDCAT_TEST_PAID_KEY      an Ultra account's key (the paid endpoints)
    CARDCAT_TEST_LIMITED_KEY   the key of an account limited to 2 requests an hour and 5 a day

Without them the tests skip: run them through ``go test ./clients -run Python``.
"""

import asyncio
import contextlib
import gzip
import io
import json
import os
import re
import tempfile
import typing
import unittest
from typing import Any, Dict, List, Set

import cardcat
from cardcat import schemas
from typecheck import problems

ENV = {name: os.environ.get(name, "") for name in (
    "CARDCAT_TEST_BASE_URL", "CARDCAT_TEST_KEY", "CARDCAT_TEST_PAID_KEY", "CARDCAT_TEST_LIMITED_KEY")}
HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "..", "README.md")
OPENAPI = os.path.join(HERE, "..", "..", "openapi.json")

# The operations sent by RecordingClient, for the check that every one was called.
SENT: Set[str] = set()


class RecordingClient(cardcat.Client):
    def _send(self, op: cardcat.Operation, *args: Any, **kwargs: Any) -> Any:
        SENT.add(op.operation_id)
        return super()._send(op, *args, **kwargs)

    def _download(self, op: cardcat.Operation, *args: Any, **kwargs: Any) -> cardcat.BulkDownload:
        SENT.add(op.operation_id)
        return super()._download(op, *args, **kwargs)


def setUpModule() -> None:
    missing = [name for name, value in ENV.items() if not value]
    if missing:
        raise unittest.SkipTest(f"{', '.join(missing)} not set: run these through `go test ./clients -run Python`")


def client(key: str = "CARDCAT_TEST_KEY", **kwargs: Any) -> RecordingClient:
    return RecordingClient(ENV[key] if key else "", ENV["CARDCAT_TEST_BASE_URL"], **kwargs)


def paid(**kwargs: Any) -> RecordingClient:
    return client("CARDCAT_TEST_PAID_KEY", **kwargs)


class TypedTestCase(unittest.TestCase):
    def assertTyped(self, value: Any, method: Any) -> None:
        """value is what the return type of method (a generated method) says."""
        tp = typing.get_type_hints(method)["return"]
        found = problems(value, tp, method.__name__)
        self.assertEqual(found[:10], [], f"{method.__name__}'s answer is not a {tp}")


class EveryOperation(TypedTestCase):
    """Every method of every game, and of the client, once at least, on a set and a card of the sample found
    by the client itself; each answer held against its declared type."""

    def sample(self, game: cardcat.GameClient) -> Dict[str, Any]:
        sets = game.list_sets()
        self.assertTyped(sets, game.list_sets)
        self.assertGreater(sets["total"], 0)
        biggest = max(sets["data"], key=lambda s: s.get("card_count", 0))
        page = game.get_set_cards(biggest["set_id"], limit=100)
        self.assertTyped(page, game.get_set_cards)
        assert "cards" in page
        card = next(c for c in page["cards"] if c["market_t"] and c["market_c"])
        return {"set": biggest, "card": card}

    def test_every_game_operation(self) -> None:
        c = paid()
        for code in cardcat.GAMES:
            with self.subTest(game=code):
                g = c.game(code)
                self.assertIs(g, getattr(c, code))
                s = self.sample(g)
                set_id, card_id = s["set"]["set_id"], s["card"]["id"]

                card = g.get_card(card_id)
                self.assertTyped(card, g.get_card)
                self.assertEqual(card["id"], card_id)
                assert card["market_t"] is not None and card["market_c"] is not None
                tcg, cm = card["market_t"]["product_id"], card["market_c"]["product_id"]
                self.assertEqual(g.get_card_by_tcgplayer_product(tcg)["id"], card_id)
                by_cm = g.get_card_by_cardmarket_product(cm)
                self.assertTyped(by_cm, g.get_card_by_cardmarket_product)
                self.assertEqual(by_cm["id"], card_id)

                batch = g.get_cards([card_id, f"{code}_0000000000000000"])
                self.assertTyped(batch, g.get_cards)
                self.assertEqual([x["id"] for x in batch["data"]], [card_id])
                self.assertEqual(batch["not_found"], [f"{code}_0000000000000000"])

                word = max(re.findall(r"[A-Za-z]{3,}", card["card_info"]["name"]), key=len)
                found = g.search_cards(word, limit=5)
                self.assertTyped(found, g.search_cards)
                self.assertGreater(found["pagination"]["total"], 0)

                files = g.list_bulk_files()
                self.assertTyped(files, g.list_bulk_files)
                self.assertEqual([f["name"] for f in files["files"]], ["cards.jsonl.gz", "prices.csv.gz"])
                data = g.get_bulk_file("prices.csv.gz")
                self.assertEqual(len(data), files["files"][1]["size"])
                self.assertTrue(gzip.decompress(data).startswith(b"game,card_id,market,"))

                changes = g.list_changes(files["updated_at"])
                self.assertTyped(changes, g.list_changes)

                stats = g.get_set_statistics(set_id)
                self.assertTyped(stats, g.get_set_statistics)
                self.assertEqual(stats["set_info"]["set_id"], set_id)  # type: ignore[typeddict-item]
                value = g.get_set_completion_value(set_id)
                self.assertTyped(value, g.get_set_completion_value)
                prices = g.get_set_prices(set_id, source="tcg")
                self.assertTyped(prices, g.get_set_prices)
                self.assertEqual(prices["source"], "tcg")  # type: ignore[typeddict-item]
                self.assertTyped(g.get_trending_sets(limit=3), g.get_trending_sets)
                top = g.get_top_cards(metric="price", limit=3)
                self.assertTyped(top, g.get_top_cards)
                self.assertLessEqual(len(top["top_cards"]), 3)
                history = g.get_card_history(card_id, days=7)
                self.assertTyped(history, g.get_card_history)
                self.assertEqual(history["id"], card_id)
                csv = g.get_card_history(card_id, source="cm", format="csv")
                self.assertTrue(csv.startswith("date,variant,"), csv[:80])

                # Images come from upstream sources, which the test machine may not reach: 502.
                try:
                    image = g.get_card_image(card_id)
                    self.assertIsInstance(image, bytes)
                except (cardcat.ServerError, cardcat.NotFound) as e:
                    self.assertIn(e.error, ("Image not available", "Image not found"))
        try:
            self.assertIsInstance(c.pkm.get_set_image("604"), bytes)
        except (cardcat.ServerError, cardcat.NotFound) as e:
            self.assertEqual(e.error, "Image not available")

    def test_public_operations(self) -> None:
        c = client("")  # no key: the public routes need none
        root = c.get_root()
        self.assertTyped(root, c.get_root)
        self.assertEqual(root["name"], "cardcat")
        games = c.list_games()
        self.assertTyped(games, c.list_games)
        health = c.get_health()
        self.assertTyped(health, c.get_health)
        self.assertEqual(health["status"], "healthy")
        self.assertIn("<html", c.get_docs().lower())
        self.assertIn("X-API-Key", c.get_llms_txt())
        # The server serves the document the client was generated from.
        with open(OPENAPI, encoding="utf-8") as f:
            self.assertEqual(c.get_openapi(), json.load(f))

    def test_alerts(self) -> None:
        """The Ultra account's alerts, which the server's test setup made (livetest.PaidAlerts); the Free
        account has none."""
        c = paid()
        alerts = c.list_alerts()
        self.assertTyped(alerts, c.list_alerts)
        self.assertEqual(alerts["pagination"]["total"], 3)
        self.assertEqual([(a["id"], a["card_id"], a["source"], a["variant"], a["rule"]) for a in alerts["alerts"]], [
            (1, "dbs_3ef29751ae2b88a4", "tcg", "Holofoil", "above"),
            (2, "dbs_3ef29751ae2b88a4", "cm", "foil", "move"),
            (3, "pkm_7dfccec2b4149d0f", "tcg", "Holofoil", "below"),
        ])
        self.assertEqual((alerts["alerts"][0]["threshold"], alerts["alerts"][1]["percent"]), (12.5, 20))
        self.assertEqual([a["email"] for a in alerts["alerts"]], [False, False, True])
        page = c.list_alerts(page=2, limit=2)
        self.assertEqual([a["id"] for a in page["alerts"]], [3])
        self.assertEqual(client().list_alerts()["alerts"], [])
        with self.assertRaises(cardcat.BadRequest) as cm:
            c.list_alerts(limit=0)
        self.assertEqual(cm.exception.error, "Invalid parameter")

    def test_mcp(self) -> None:
        c = client()
        tools = c.post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert tools is not None
        self.assertIn("get_card", [t["name"] for t in tools["result"]["tools"]])
        call = c.post_mcp({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "list_sets", "arguments": {"game": "op"}}})
        assert call is not None
        self.assertEqual(call["result"]["structuredContent"]["total"], 2)
        # A notification is accepted without an answer (202).
        self.assertIsNone(c.post_mcp({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        self.assertEqual(c.last_response.status if c.last_response else 0, 202)
        # A JSON-RPC error is an answer, not an exception.
        bad = c.post_mcp({"jsonrpc": "2.0", "id": 3, "method": "no/such"})
        assert bad is not None
        self.assertEqual(bad["error"]["code"], -32601)

    def test_zz_every_operation_sent(self) -> None:
        """Runs last (unittest sorts by name): every operationId of the table was sent by a test."""
        if len(SENT) < 2:
            self.skipTest("run with the whole suite")
        self.assertEqual(sorted(set(cardcat.OPERATIONS) - SENT), [])


class Errors(TypedTestCase):
    def test_404_card_not_found(self) -> None:
        c = client()
        with self.assertRaises(cardcat.NotFound) as cm:
            c.dbs.get_card("dbs_0000000000000000")
        e = cm.exception
        self.assertEqual((e.status, e.error), (404, "Card not found"))
        self.assertIn("dbs_0000000000000000", e.message)
        self.assertTrue(e.request_id)
        self.assertIs(c.last_response, e.response)
        self.assertEqual(c.rate_limit.limit_hour if c.rate_limit else 0, 100)

    def test_404_did_you_mean(self) -> None:
        # A Pokémon product asked of the dbs routes: the right path is in did_you_mean.
        with self.assertRaises(cardcat.NotFound) as cm:
            client().dbs.get_card_by_tcgplayer_product(42382)
        self.assertEqual(cm.exception.error, "Card not found")
        self.assertEqual(cm.exception.did_you_mean, "/cards/tcgplayer/42382")
        self.assertIn("did you mean /cards/tcgplayer/42382", str(cm.exception))

    def test_404_endpoint_not_found(self) -> None:
        # A base URL with a path the server does not have.
        c = RecordingClient(ENV["CARDCAT_TEST_KEY"], ENV["CARDCAT_TEST_BASE_URL"] + "/v1")
        with self.assertRaises(cardcat.NotFound) as cm:
            c.dbs.list_sets()
        self.assertEqual(cm.exception.error, "Endpoint not found")
        self.assertIn("did_you_mean", cm.exception.body)
        self.assertTrue(cm.exception.docs)

    def test_404_set_suggestions(self) -> None:
        with self.assertRaises(cardcat.NotFound) as cm:
            client().dbs.get_set_cards("awakened-pulse")
        self.assertEqual(cm.exception.error, "Set not found")
        self.assertEqual([s["set_id"] for s in cm.exception.suggestions], ["23401"])

    def test_400(self) -> None:
        c = client()
        with self.assertRaises(cardcat.BadRequest) as cm:
            c.pkm.search_cards("a")
        self.assertEqual(cm.exception.error, "Query parameter required")
        with self.assertRaises(cardcat.BadRequest) as cm:
            c.dbs.get_card("pkm_7357e65c863a75a5")  # the other game's id
        self.assertEqual(cm.exception.error, "Invalid or corrupted card ID")
        self.assertEqual(cm.exception.did_you_mean, "/cards/pkm_7357e65c863a75a5")
        with self.assertRaises(cardcat.BadRequest) as cm:
            c.mtg.get_cards([f"mtg_{i:016x}" for i in range(101)])
        self.assertEqual(cm.exception.error, "Invalid parameter")

    def test_401(self) -> None:
        with self.assertRaises(cardcat.Unauthorized) as cm:
            client("").dbs.list_sets()
        e = cm.exception
        self.assertEqual((e.status, e.error), (401, "API key required"))
        self.assertIn("curl", e.example or "")
        self.assertEqual(e.response.headers.get("WWW-Authenticate"), 'Bearer realm="cardcat"')
        with self.assertRaises(cardcat.Unauthorized) as cm:
            RecordingClient("pk_live_" + "x" * 32, ENV["CARDCAT_TEST_BASE_URL"]).op.list_sets()
        self.assertEqual(cm.exception.error, "Invalid API key")

    def test_403_plan_required(self) -> None:
        with self.assertRaises(cardcat.PlanRequired) as cm:
            client().pkm.get_set_statistics("604")
        self.assertEqual(cm.exception.error, "Plan upgrade required")
        self.assertTrue(cm.exception.redeem_url)

    def test_transport_error(self) -> None:
        c = cardcat.Client("pk_live_x", "http://127.0.0.1:9", timeout=2)  # nothing listens on port 9
        with self.assertRaises(cardcat.TransportError):
            c.get_health()


class Pages(TypedTestCase):
    def test_iter_set_cards(self) -> None:
        c = paid()
        first = c.mtg.get_set_cards("23447", limit=1)
        assert "set" in first
        total = first["set"]["total_cards"]
        ids = [card["id"] for card in c.mtg.iter_set_cards("23447", page_size=200)]
        self.assertGreater(total, 400)
        self.assertEqual(len(ids), total)
        self.assertEqual(len(set(ids)), total)
        self.assertEqual(c.last_response.url.split("?")[1] if c.last_response else "", "page=3&limit=200")

    def test_iter_search_cards(self) -> None:
        c = paid()
        total = c.dbs.search_cards("vegeta", limit=1)["pagination"]["total"]
        names = [card["card_info"]["name"] for card in c.dbs.iter_search_cards("vegeta", page_size=5)]
        self.assertEqual(len(names), total)
        self.assertTrue(all("vegeta" in n.lower() for n in names))

    def test_iter_cards(self) -> None:
        c = paid()
        ids = [card["id"] for card in c.op.iter_set_cards("3188")]
        cards = list(c.op.iter_cards(ids + ["op_0000000000000000"]))  # 3 requests of up to 100
        self.assertEqual([card["id"] for card in cards], ids)
        self.assertTrue(any(card["market_t"] and card["market_t"]["prices"] for card in cards))

    def test_iter_change_pages(self) -> None:
        c = paid()
        since = c.pkm.list_bulk_files()["updated_at"]
        pages = list(c.pkm.iter_change_pages(since))
        self.assertEqual(len(pages), 1)
        self.assertEqual(pages[0]["until"], since)

    def test_disambiguation(self) -> None:
        c = paid()
        answer = c.mtg.get_set_cards("WHO")
        self.assertIn("disambiguation", answer)
        with self.assertRaises(cardcat.AmbiguousSet) as cm:
            list(c.mtg.iter_set_cards("WHO"))
        self.assertEqual(sorted(m["set_id"] for m in cm.exception.matches), ["23165", "23166"])


class Revalidation(TypedTestCase):
    def test_if_none_match(self) -> None:
        c = paid()
        card = c.dbs.get_card("dbs_b8900e61064a48cb")
        first = c.last_response
        assert first is not None and first.etag and first.rate_limit
        with self.assertRaises(cardcat.NotModified) as cm:
            c.dbs.get_card("dbs_b8900e61064a48cb", if_none_match=first.etag)
        self.assertEqual(cm.exception.etag, first.etag)
        after = c.rate_limit
        assert after is not None
        self.assertEqual(after.remaining_hour, first.rate_limit.remaining_hour, "a 304 is not counted")
        self.assertEqual(card["id"], "dbs_b8900e61064a48cb")

    def test_cache(self) -> None:
        c = paid(cache=True)
        a = c.pkm.search_cards("charizard")
        first = c.last_response
        assert first is not None and first.rate_limit
        self.assertFalse(first.from_cache)
        b = c.pkm.search_cards("charizard")
        second = c.last_response
        assert second is not None and second.rate_limit
        self.assertEqual((second.status, second.from_cache), (304, True))
        self.assertEqual(a, b)
        self.assertEqual(second.rate_limit.remaining_hour, first.rate_limit.remaining_hour)
        self.assertEqual(len(c.cache), 1)  # type: ignore[arg-type]

    def test_bulk_download(self) -> None:
        c = paid()
        listing = {f["name"]: f for f in c.dbs.list_bulk_files()["files"]}
        with tempfile.TemporaryDirectory(prefix="pyclient-") as tmp:
            path = os.path.join(tmp, "dbs-cards.jsonl.gz")
            got = c.dbs.download_bulk_file("cards.jsonl.gz", path)
            self.assertTrue(got.downloaded)
            self.assertEqual((got.sha256, got.size), (listing["cards.jsonl.gz"]["sha256"], os.path.getsize(path)))
            with gzip.open(path, "rt", encoding="utf-8") as f:
                first = json.loads(f.readline())
            self.assertEqual(problems(first, schemas.Card), [])
            again = c.dbs.download_bulk_file("cards.jsonl.gz", path)
            self.assertFalse(again.downloaded, "the same file: a 304")
            self.assertEqual(os.listdir(tmp), ["dbs-cards.jsonl.gz"])
        piece = c.dbs.get_bulk_file("cards.jsonl.gz", range="bytes=0-9")
        self.assertEqual((len(piece), c.last_response.status if c.last_response else 0), (10, 206))


class RateLimits(TypedTestCase):
    """The limited account: 2 requests an hour, 5 a day. Its third request of an hour is refused, and one of
    any 6 requests is, even across the turn of an hour."""

    def test_429_and_retries(self) -> None:
        c = client("CARDCAT_TEST_LIMITED_KEY")
        card = c.mtg.get_set_cards("23447", limit=1)
        etag = c.last_response.etag if c.last_response else None
        refused = None
        for _ in range(5):
            try:
                c.mtg.list_sets()
            except cardcat.RateLimited as e:
                refused = e
                break
        assert refused is not None, "no 429 in 6 requests of an account limited to 2 an hour"
        self.assertEqual(refused.error, "Rate limit exceeded")
        self.assertEqual(refused.limits["hourly"]["limit"] if refused.limits else 0, 2)
        assert refused.retry_after is not None
        self.assertTrue(1 <= refused.retry_after <= 86400, refused.retry_after)
        rl = refused.response.rate_limit
        assert rl is not None
        self.assertEqual((rl.limit_hour, rl.limit_day, rl.retry_after), (2, 5, refused.retry_after))
        self.assertTrue(rl.remaining_hour == 0 or rl.remaining_day == 0)

        # Past the limit, a revalidation is still answered: a 304 never costs quota.
        with self.assertRaises(cardcat.NotModified):
            c.mtg.get_set_cards("23447", limit=1, if_none_match=etag)
        self.assertIn("set", card)

        # Retries wait Retry-After (the sleep is recorded here, not slept), then give up.
        waits: List[float] = []
        patient = client("CARDCAT_TEST_LIMITED_KEY", retries=2, max_retry_wait=86400)
        patient._sleep = waits.append
        with self.assertRaises(cardcat.RateLimited):
            patient.mtg.list_sets()
        self.assertEqual(len(waits), 2)
        self.assertTrue(all(1 <= w <= 86400 for w in waits), waits)
        # A Retry-After beyond max_retry_wait is not waited.
        impatient = client("CARDCAT_TEST_LIMITED_KEY", retries=2, max_retry_wait=0.5)
        impatient._sleep = waits.append
        with self.assertRaises(cardcat.RateLimited):
            impatient.mtg.list_sets()
        self.assertEqual(len(waits), 2)


class AsyncLive(unittest.IsolatedAsyncioTestCase):
    """cardcat.AsyncClient on the sample: the same answers, typed the same, as the sync client's."""

    def assertTyped(self, value: Any, method: Any) -> None:
        tp = typing.get_type_hints(method)["return"]
        self.assertEqual(problems(value, tp, method.__name__)[:10], [], f"{method.__name__}'s answer is not a {tp}")

    async def test_operations(self) -> None:
        c = cardcat.AsyncClient(ENV["CARDCAT_TEST_PAID_KEY"], ENV["CARDCAT_TEST_BASE_URL"])
        card, found, sets = await asyncio.gather(  # three requests at once
            c.dbs.get_card("dbs_b8900e61064a48cb"), c.pkm.search_cards("charizard", limit=2), c.mtg.list_sets())
        self.assertTyped(card, c.dbs.get_card)
        self.assertTyped(found, c.pkm.search_cards)
        self.assertTyped(sets, c.mtg.list_sets)
        self.assertEqual(card, cardcat.Client(ENV["CARDCAT_TEST_PAID_KEY"], ENV["CARDCAT_TEST_BASE_URL"]).dbs.get_card(
            "dbs_b8900e61064a48cb"))
        stats = await c.pkm.get_set_statistics("604")
        self.assertTyped(stats, c.pkm.get_set_statistics)
        csv = await c.op.get_card_history("op_3ea79abe07db3cf3", format="csv")
        self.assertTrue(csv.startswith("date,variant,"), csv[:80])
        self.assertIn((await c.get_health())["status"], ("healthy", "degraded"))
        self.assertIn("tools", (await c.post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))["result"])
        assert c.last_response is not None and c.rate_limit is not None
        self.assertEqual(c.last_response.status, 200)

    async def test_errors(self) -> None:
        c = cardcat.AsyncClient(ENV["CARDCAT_TEST_KEY"], ENV["CARDCAT_TEST_BASE_URL"])
        with self.assertRaises(cardcat.NotFound) as cm:
            await c.dbs.get_card_by_tcgplayer_product(42382)
        self.assertEqual((cm.exception.error, cm.exception.did_you_mean), ("Card not found", "/cards/tcgplayer/42382"))
        with self.assertRaises(cardcat.PlanRequired) as pr:
            await c.pkm.get_set_statistics("604")
        self.assertTrue(pr.exception.redeem_url)
        with self.assertRaises(cardcat.Unauthorized):
            await cardcat.AsyncClient("pk_test_" + "0" * 32, ENV["CARDCAT_TEST_BASE_URL"]).dbs.list_sets()
        with self.assertRaises(cardcat.TransportError):
            await cardcat.AsyncClient("", "http://127.0.0.1:9", timeout=2).get_health()

    async def test_pages(self) -> None:
        c = cardcat.AsyncClient(ENV["CARDCAT_TEST_PAID_KEY"], ENV["CARDCAT_TEST_BASE_URL"])
        cards = [card["id"] async for card in c.pkm.iter_set_cards("604", page_size=40)]
        sync = cardcat.Client(ENV["CARDCAT_TEST_PAID_KEY"], ENV["CARDCAT_TEST_BASE_URL"])
        self.assertEqual(cards, [card["id"] for card in sync.pkm.iter_set_cards("604", page_size=200)])
        self.assertGreater(len(cards), 40)
        found = [card async for card in c.pkm.iter_cards(cards[:3])]
        self.assertEqual([card["id"] for card in found], cards[:3])
        with self.assertRaises(cardcat.AmbiguousSet):
            async for _ in c.mtg.iter_set_cards("WHO"):
                pass

    async def test_revalidation_and_bulk(self) -> None:
        c = cardcat.AsyncClient(ENV["CARDCAT_TEST_PAID_KEY"], ENV["CARDCAT_TEST_BASE_URL"], cache=True)
        first = await c.pkm.search_cards("charizard")
        before = c.rate_limit
        again = await c.pkm.search_cards("charizard")
        assert c.last_response is not None and before is not None and c.rate_limit is not None
        self.assertEqual((again, c.last_response.status, c.last_response.from_cache), (first, 304, True))
        self.assertEqual(c.rate_limit.remaining_hour, before.remaining_hour, "a 304 is not counted")
        with tempfile.TemporaryDirectory(prefix="pyclient-async-") as tmp:
            path = os.path.join(tmp, "op-cards.jsonl.gz")
            got = await c.op.download_bulk_file("cards.jsonl.gz", path)
            self.assertTrue(got.downloaded)
            self.assertEqual(got.size, os.path.getsize(path))
            self.assertFalse((await c.op.download_bulk_file("cards.jsonl.gz", path)).downloaded)


class Readme(unittest.TestCase):
    def test_examples(self) -> None:
        """The README's Python examples run, in order, on the sample, with the key and the server from
        the environment as the README sets them."""
        with open(README, encoding="utf-8") as f:
            blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)
        self.assertGreaterEqual(len(blocks), 3)
        env = {"CARDCAT_API_KEY": ENV["CARDCAT_TEST_KEY"], "CARDCAT_BASE_URL": ENV["CARDCAT_TEST_BASE_URL"]}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        out = io.StringIO()
        try:
            namespace: Dict[str, Any] = {"__name__": "readme"}
            with contextlib.redirect_stdout(out):
                for i, block in enumerate(blocks):
                    exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        printed = out.getvalue()
        self.assertIn("Charizard", printed)
        self.assertIn("Vegeta", printed)
        self.assertIn("products in the Base Set", printed)  # the async example


if __name__ == "__main__":
    unittest.main()
