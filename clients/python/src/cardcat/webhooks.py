"""Verifying cardcat's webhook deliveries.

Every delivery carries ``Cardcat-Signature: t=1795867190,v1=25a9f6ca...``: ``t`` is the Unix time of the attempt,
``v1`` the hex HMAC-SHA256, keyed by the endpoint's whole signing secret (``whsec_...``), of ``t``, ``.`` and the
body's bytes. During a secret's rotation a delivery carries one ``v1`` per secret. ``verify_webhook`` checks it::

    import cardcat

    body = request.get_data()  # the raw bytes, before any JSON parsing
    try:
        cardcat.verify_webhook(secret, request.headers.get(cardcat.WEBHOOK_SIGNATURE_HEADER), body)
    except cardcat.WebhookSignatureError as e:
        return "bad signature: " + e.reason, 400

Delivery is at least once: use the event's ``id`` to do its work once.
"""

import datetime
import hashlib
import hmac
import re
import time
from typing import Callable, Optional, Union

from .errors import CardcatError

WEBHOOK_SIGNATURE_HEADER = "Cardcat-Signature"
"""The header that carries a delivery's signature."""

DEFAULT_WEBHOOK_TOLERANCE = 300
"""How far a delivery's ``t`` may be from the receiver's clock, in seconds (5 minutes)."""

_INT64 = re.compile(r"[+-]?[0-9]+")
_HEX_BYTES = re.compile(r"(?:[0-9a-fA-F]{2})*")

_MESSAGES = {
    "no_signature": "no webhook signature (t=... and v1=...) in the header",
    "bad_signature": "the webhook signature does not match the body",
    "too_old": "the webhook signature's time is outside the tolerance (a replay?)",
}


class WebhookSignatureError(CardcatError):
    """A webhook delivery ``verify_webhook`` refuses: answer it with a 4xx and do not act on it.

    ``reason`` says why: ``no_signature`` (no ``t`` and ``v1`` in the header), ``bad_signature`` (no ``v1``
    matches the body and the secret) or ``too_old`` (``t`` is outside the tolerance: a replay?).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(_MESSAGES[reason])
        self.reason = reason


def verify_webhook(
    secret: str,
    header: Optional[str],
    body: Union[bytes, bytearray, memoryview, str],
    *,
    tolerance: Union[float, datetime.timedelta] = DEFAULT_WEBHOOK_TOLERANCE,
    now: Optional[Callable[[], Union[float, datetime.datetime]]] = None,
) -> None:
    """Checks a webhook delivery before its body is read as JSON; raises ``WebhookSignatureError`` when refused.

    Args:
        secret: the endpoint's signing secret (``whsec_...``), shown once when it was created or rotated.
        header: the delivery's ``Cardcat-Signature`` value (None when it has none).
        body: the body's bytes exactly as received; a str is taken as UTF-8.
        tolerance: how far ``t`` may be from now, in seconds or as a timedelta (default 5 minutes; 0 or less
            is the default).
        now: the clock, a function returning Unix seconds or an aware datetime (default ``time.time``).

    One matching ``v1`` is enough (a rotated secret's overlap signs with both); each is compared in constant time.
    """
    if not secret:
        raise ValueError("verify_webhook: the endpoint's secret is required")
    if isinstance(tolerance, datetime.timedelta):
        tolerance = tolerance.total_seconds()
    if tolerance <= 0:
        tolerance = DEFAULT_WEBHOOK_TOLERANCE
    ts: Optional[str] = None
    sigs = []
    for part in (header or "").split(","):
        k, eq, v = part.strip().partition("=")
        if not eq:
            continue
        if k == "t":
            ts = v
        elif k == "v1" and _HEX_BYTES.fullmatch(v):
            sigs.append(v.lower())
    if ts is None or not _INT64.fullmatch(ts) or not sigs or not -(2**63) <= int(ts) < 2**63:
        raise WebhookSignatureError("no_signature")
    data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    want = hmac.new(secret.encode("utf-8"), ts.encode("ascii") + b"." + data, hashlib.sha256).hexdigest()
    match = False
    for sig in sigs:  # every v1 is compared, so that the time taken does not say which matched
        if hmac.compare_digest(sig, want):
            match = True
    if not match:
        raise WebhookSignatureError("bad_signature")
    clock = (now or time.time)()
    seconds = clock.timestamp() if isinstance(clock, datetime.datetime) else float(clock)
    if abs(seconds - int(ts)) > tolerance:
        raise WebhookSignatureError("too_old")
