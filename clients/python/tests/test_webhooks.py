"""verify_webhook on the vectors the server's own signing made (clients/testdata/webhook-signatures.json, kept fresh
by the Go test TestWebhookVectors): each is accepted or refused for the reason the server's Verify gives."""

import datetime
import json
import os
import time
import unittest

import cardcat

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "webhook-signatures.json")


class VerifyWebhookTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        with open(VECTORS, encoding="utf-8") as f:
            cls.vectors = json.load(f)["vectors"]

    def test_vectors(self) -> None:
        self.assertGreaterEqual(len(self.vectors), 20)
        for v in self.vectors:
            kwargs = {} if v["tolerance"] is None else {"tolerance": v["tolerance"]}
            clocks = (
                lambda v=v: float(v["now"]),
                lambda v=v: datetime.datetime.fromtimestamp(v["now"], datetime.timezone.utc),
            )
            for body in (v["body"], v["body"].encode("utf-8")):
                for clock in clocks:
                    with self.subTest(v["name"], body_type=type(body).__name__):
                        if v["error"] is None:
                            cardcat.verify_webhook(v["secret"], v["header"], body, now=clock, **kwargs)
                        else:
                            with self.assertRaises(cardcat.WebhookSignatureError) as ctx:
                                cardcat.verify_webhook(v["secret"], v["header"], body, now=clock, **kwargs)
                            self.assertEqual(ctx.exception.reason, v["error"])

    def test_tolerance_as_timedelta(self) -> None:
        v = next(v for v in self.vectors if v["name"] == "an hour ago within a tolerance of two hours")
        cardcat.verify_webhook(v["secret"], v["header"], v["body"], tolerance=datetime.timedelta(hours=2), now=lambda: v["now"])
        with self.assertRaises(cardcat.WebhookSignatureError):
            cardcat.verify_webhook(v["secret"], v["header"], v["body"], tolerance=datetime.timedelta(minutes=59), now=lambda: v["now"])

    def test_system_clock_by_default(self) -> None:
        v = self.vectors[0]
        if v["now"] < time.time() - 301:
            with self.assertRaises(cardcat.WebhookSignatureError) as ctx:
                cardcat.verify_webhook(v["secret"], v["header"], v["body"])
            self.assertEqual(ctx.exception.reason, "too_old")

    def test_secret_required(self) -> None:
        with self.assertRaises(ValueError):
            cardcat.verify_webhook("", "t=1,v1=00", b"")

    def test_missing_header(self) -> None:
        with self.assertRaises(cardcat.WebhookSignatureError) as ctx:
            cardcat.verify_webhook("whsec_x", None, b"{}")
        self.assertEqual(ctx.exception.reason, "no_signature")


if __name__ == "__main__":
    unittest.main()
