"""The client: requests, answers, errors, retries, the ETag cache, and the helpers over pages and bulk files.

The methods of the operations themselves are generated (``_operations.py``); they all end in ``_call``, which
picks the route of the game and sends it through ``Client._send``.
"""

import datetime
import email.utils
import gzip
import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass, replace
from email.message import Message
from http.client import HTTPException
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Protocol, Tuple, Union, cast

from . import errors
from ._operation import Operation
from ._operations import (
    BASE_GAME,
    BASE_TWINS,
    GAMES,
    OPERATIONS,
    BaseGameOperations,
    GameOperations,
    ServiceOperations,
)
from ._version import __version__
from .schemas import Card, Changes

DEFAULT_BASE_URL = "http://localhost:8080"
"""The server when neither ``base_url`` nor ``CARDCAT_BASE_URL`` names one: ``cardcat serve`` on its defaults."""

KEY_VARIABLES = ("CARDCAT_API_KEY", "CARDCAT_KEY")
"""The environment variables read, in this order, for the key when ``api_key`` is not given."""

BASE_URL_VARIABLE = "CARDCAT_BASE_URL"

RETRY_STATUSES = (429, 503)
"""The statuses retried when ``retries`` allows it: both carry ``Retry-After``, and a 429 is never counted."""

_PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class RateLimit:
    """The ``X-RateLimit-*`` and ``Retry-After`` headers of an answer: the pool after this request."""

    limit_hour: int
    remaining_hour: int
    limit_day: int
    remaining_day: int
    retry_after: Optional[int] = None
    """Seconds to wait before retrying: on a 429 (and a 502, 503); else None."""

    @classmethod
    def from_headers(cls, headers: Message) -> Optional["RateLimit"]:
        """The rate limits of an answer's headers; None when one of the four counts is missing (a server
        without rate limiting)."""
        counts = []
        for name in ("X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour",
                     "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"):
            value = (headers.get(name) or "").strip()
            if not value.isdigit():
                return None
            counts.append(int(value))
        return cls(counts[0], counts[1], counts[2], counts[3], _retry_after(headers))


def _retry_after(headers: Message) -> Optional[int]:
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return int(value)
    try:  # the HTTP-date form
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0, int((when - datetime.datetime.now(datetime.timezone.utc)).total_seconds() + 0.999))


@dataclass(frozen=True)
class Response:
    """What the client saw of an answer: ``Client.last_response`` and ``APIError.response``."""

    status: int
    """The HTTP status: 304 when the answer was revalidated (see ``from_cache``)."""
    url: str
    headers: Message
    """The answer's headers (case-insensitive ``headers.get("ETag")``)."""
    from_cache: bool = False
    """True when the body came from the client's cache after a 304 (not counted)."""

    @property
    def rate_limit(self) -> Optional[RateLimit]:
        """The ``X-RateLimit-*`` headers; None when the answer has none."""
        return RateLimit.from_headers(self.headers)

    @property
    def retry_after(self) -> Optional[int]:
        """``Retry-After`` in seconds (429, 502, 503); else None."""
        return _retry_after(self.headers)

    @property
    def etag(self) -> Optional[str]:
        """The answer's ``ETag`` (quoted, as sent): pass it as ``if_none_match`` to revalidate."""
        return self.headers.get("ETag")

    @property
    def request_id(self) -> Optional[str]:
        """``X-Request-Id``: quote it when you report a problem."""
        return self.headers.get("X-Request-Id")

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type") or ""


@dataclass(frozen=True)
class CachedAnswer:
    """An answer kept by the ETag cache: its tag, its Content-Type and its (uncompressed) body."""

    etag: str
    content_type: str
    body: bytes


class Cache(Protocol):
    """Where a client keeps answers to revalidate them (``Client(cache=...)``): ``MemoryCache``, or your own
    (a dict on disk, Redis...) with these two methods. Keys are URLs; they hold no key of yours."""

    def get(self, url: str) -> Optional[CachedAnswer]: ...

    def set(self, url: str, answer: CachedAnswer) -> None: ...


class MemoryCache:
    """An in-memory ETag cache of the last ``max_entries`` answers (least recently used dropped first);
    bodies above ``max_body_bytes`` are not kept. Safe to share between threads."""

    def __init__(self, max_entries: int = 512, max_body_bytes: int = 4 << 20) -> None:
        self.max_entries = max_entries
        self.max_body_bytes = max_body_bytes
        self._entries: "OrderedDict[str, CachedAnswer]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> Optional[CachedAnswer]:
        with self._lock:
            answer = self._entries.get(url)
            if answer is not None:
                self._entries.move_to_end(url)
            return answer

    def set(self, url: str, answer: CachedAnswer) -> None:
        if len(answer.body) > self.max_body_bytes:
            return
        with self._lock:
            self._entries[url] = answer
            self._entries.move_to_end(url)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


@dataclass(frozen=True)
class BulkDownload:
    """The outcome of ``download_bulk_file``."""

    path: str
    """Where the file is."""
    sha256: str
    """Its sha256, lower-case hex: checked against the server's."""
    size: int
    """Its size in bytes."""
    downloaded: bool
    """False when the file at ``path`` already was the server's (a 304: nothing downloaded, not counted)."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; a redirect (a proxy, a wrong base URL) is answered as it is, so that the key
    is never sent to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Client(ServiceOperations):
    """A client of a cardcat server.

    >>> client = Client("pk_live_...")             # or Client(), with the key in CARDCAT_API_KEY
    >>> card = client.dbs.get_card("dbs_b8900e61064a48cb")
    >>> client.pkm.search_cards("charizard")["results"][0]["card_info"]["name"]

    The public routes are methods of the client (``get_health``, ``list_games``, ...); every game's routes are
    methods of its sub-client: ``client.pkm`` (Pokémon, the base game, on the unprefixed routes),
    ``client.dbs``, ``client.mtg``, ``client.op``, or ``client.game(code)``. Answers are the decoded JSON
    (typed by ``cardcat.schemas``), ``str`` for text and ``bytes`` for images and files. An error status
    raises an ``APIError`` subclass; ``last_response`` has the status and headers of the last answer (its
    ``rate_limit`` the ``X-RateLimit-*`` numbers).

    Args:
        api_key: Your key (``pk_live_...`` or ``pk_test_...``), sent as ``X-API-Key``. When None, the
            environment's ``CARDCAT_API_KEY`` (else ``CARDCAT_KEY``); an empty string sends none (only the
            public routes then answer).
        base_url: The server, such as ``https://api.example.com``; when None, ``CARDCAT_BASE_URL``, else
            ``http://localhost:8080``.
        timeout: Seconds to wait for the server on each request (connecting, and each read).
        retries: How many times to retry a 429 or a 503 after waiting its ``Retry-After`` (0: never, the
            default). A wait longer than ``max_retry_wait`` is not waited: the error is raised at once.
        max_retry_wait: The longest ``Retry-After``, in seconds, that a retry waits.
        cache: Keep answers and revalidate them with their ``ETag``: ``True`` for a ``MemoryCache()``, or a
            cache of yours. An unchanged answer is then a 304, which is never counted and answered even past
            the rate limit, and the method returns the copy kept (``last_response.from_cache`` is True).
        user_agent: The ``User-Agent`` sent (default ``cardcat-python/VERSION``).
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = 30.0,
        retries: int = 0,
        max_retry_wait: float = 60.0,
        cache: Union[bool, Cache, None] = None,
        user_agent: Optional[str] = None,
    ) -> None:
        if api_key is None:
            api_key = next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), "")
        self.api_key = api_key.strip()
        if base_url is None:
            base_url = os.environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.cache: Optional[Cache] = None
        if cache is True:
            self.cache = MemoryCache()
        elif cache is not None and cache is not False:  # not `cache or None`: an empty cache's len is 0
            self.cache = cache
        self.user_agent = user_agent or f"cardcat-python/{__version__}"
        self._opener = urllib.request.build_opener(_NoRedirect)
        self._local = threading.local()
        self._sleep: Callable[[float], None] = time.sleep

        self.pkm = PokemonClient(self, "pkm")
        """Pokémon Trading Card Game, the base game: the routes without a prefix (``/cards/{id}``)."""
        self.dbs = GameClient(self, "dbs")
        """Dragon Ball Super Card Game: ``/dbs/...``."""
        self.mtg = GameClient(self, "mtg")
        """Magic: The Gathering: ``/mtg/...``."""
        self.op = GameClient(self, "op")
        """One Piece Card Game: ``/op/...``."""

    def __repr__(self) -> str:
        key = f"{self.api_key[:12]}…" if self.api_key else "no key"
        return f"cardcat.Client({self.base_url!r}, {key})"

    def game(self, code: str) -> "GameClient":
        """The sub-client of a game by its code: ``pkm``, ``dbs``, ``mtg`` or ``op`` (``GAMES``)."""
        if code not in GAMES:
            raise ValueError(f"unknown game {code!r}: the games are {', '.join(GAMES)}")
        return cast(GameClient, getattr(self, code))

    @property
    def last_response(self) -> Optional[Response]:
        """The last answer this thread received through this client (its status and headers), or None."""
        return getattr(self._local, "response", None)

    @property
    def rate_limit(self) -> Optional[RateLimit]:
        """The ``X-RateLimit-*`` numbers of the last answer (``last_response.rate_limit``), or None."""
        response = self.last_response
        return response.rate_limit if response is not None else None

    # The generated methods of the public routes end here.
    def _call(
        self,
        operation_id: str,
        path: Dict[str, Any],
        query: Dict[str, Any],
        headers: Dict[str, Any],
        body: Any = None,
    ) -> Any:
        return self._send(OPERATIONS[operation_id], path, query, headers, body)

    # Requests.

    def _url(self, op: Operation, path: Dict[str, Any], query: Dict[str, Any]) -> str:
        url = op.path
        for name, value in path.items():
            if value is None or value == "":
                raise ValueError(f"{op.operation_id}: the path parameter {name} is required")
            url = url.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        pairs = [(name, _query_value(value)) for name, value in query.items() if value is not None]
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        return self.base_url + url

    def _headers(self, op: Operation, headers: Dict[str, Any], compressed: bool = True) -> Dict[str, str]:
        out = {"User-Agent": self.user_agent, "Accept": op.accept}
        if op.keyed and self.api_key:
            out["X-API-Key"] = self.api_key
        if compressed:
            out["Accept-Encoding"] = "gzip"
        if op.method == "POST":  # POST /mcp: MCP's streamable HTTP wants both media types
            out["Content-Type"] = "application/json"
            out["Accept"] = "application/json, text/event-stream"
        for name, value in headers.items():
            if value is not None:
                out[name] = str(value)
        return out

    def _send(
        self,
        op: Operation,
        path: Dict[str, Any],
        query: Dict[str, Any],
        headers: Dict[str, Any],
        body: Any = None,
    ) -> Any:
        url = self._url(op, path, query)
        explicit = any(v is not None for v in headers.values())  # If-None-Match, Range... of the caller
        sent = self._headers(op, headers)
        cached = None
        use_cache = self.cache is not None and op.conditional and not explicit
        if use_cache:
            cached = self.cache.get(url)  # type: ignore[union-attr]
            if cached is not None:
                sent["If-None-Match"] = cached.etag
        data = json.dumps(body).encode("utf-8") if body is not None else None
        response, raw_body, _ = self._exchange(op, url, sent, data)
        if response.status == 304:
            if cached is None:
                raise errors.NotModified(response)
            response = replace(response, from_cache=True)
            self._local.response = response
            return _decode(cached.content_type, cached.body)
        if use_cache and response.status == 200 and response.etag:
            self.cache.set(url, CachedAnswer(response.etag, response.content_type, raw_body))  # type: ignore[union-attr]
        if not raw_body and response.status in (202, 204):
            return None
        return _decode(response.content_type, raw_body)

    def _open(self, op: Operation, url: str, headers: Dict[str, str], data: Optional[bytes]) -> Tuple[Any, Response]:
        """Sends one request; returns the open answer (any status) and its Response."""
        request = urllib.request.Request(url, data=data, headers=headers, method=op.method)
        try:
            raw = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as e:  # any status but 2xx: an answer all the same
            raw = e
        except (urllib.error.URLError, HTTPException, OSError) as e:
            reason = getattr(e, "reason", e)
            raise errors.TransportError(f"{op.method} {url}: {reason}") from e
        status = getattr(raw, "status", None) or raw.code
        response = Response(status=status, url=url, headers=raw.headers)
        self._local.response = response
        return raw, response

    def _exchange(
        self,
        op: Operation,
        url: str,
        headers: Dict[str, str],
        data: Optional[bytes],
        stream: bool = False,
    ) -> Tuple[Response, bytes, Any]:
        """Sends the request, retrying a 429 or 503 as ``retries`` allows; returns the answer, its body
        (uncompressed) and None, or raises its APIError. With stream, a 2xx body is left unread: the
        third value is the open answer to read it from."""
        attempt = 0
        while True:
            raw, response = self._open(op, url, headers, data)
            if stream and 200 <= response.status < 300:
                return response, b"", raw
            try:
                body = _read(raw, response)
            except (HTTPException, OSError) as e:
                raise errors.TransportError(f"{op.method} {url}: reading the answer: {e}") from e
            if response.status < 300 or response.status == 304:
                return response, body, None
            error_body = _error_body(response, body)
            if response.status in op.lenient and error_body is None:
                return response, body, None
            error = errors.error_class(response.status)(response.status, error_body or {}, response)
            wait = self._retry_wait(response, attempt)
            if wait is None:
                raise error
            self._sleep(wait)
            attempt += 1

    def _retry_wait(self, response: Response, attempt: int) -> Optional[float]:
        return _retry_wait_of(response, attempt, self.retries, self.max_retry_wait)

    def _download(self, op: Operation, path: Dict[str, Any], dest: _PathLike, chunk_size: int) -> BulkDownload:
        target = os.fspath(dest)
        headers: Dict[str, Any] = {}
        existing = None
        if os.path.isfile(target):
            existing = _sha256_file(target)
            headers["If-None-Match"] = f'"{existing[0]}"'
        url = self._url(op, path, {})
        # No Accept-Encoding: a bulk file is the gzip file as it is, never compressed again.
        response, _, raw = self._exchange(op, url, self._headers(op, headers, compressed=False), None, stream=True)
        if response.status == 304 and existing is not None:
            return BulkDownload(target, existing[0], existing[1], downloaded=False)
        if raw is None:
            raise errors.CardcatError(f"GET {url}: answered {response.status} without a file")
        partial = target + ".part"
        digest, size = hashlib.sha256(), 0
        try:
            with raw, open(partial, "wb") as out:
                while True:
                    chunk = raw.read(chunk_size)
                    if not chunk:
                        break
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            expected = (response.etag or "").strip('"')
            if expected and digest.hexdigest() != expected:
                raise errors.CardcatError(
                    f"{url}: the file downloaded has the sha256 {digest.hexdigest()}, the server's is {expected}")
            os.replace(partial, target)
        except (HTTPException, OSError) as e:
            _remove(partial)
            raise errors.TransportError(f"GET {url}: downloading: {e}") from e
        except BaseException:
            _remove(partial)
            raise
        return BulkDownload(target, digest.hexdigest(), size, downloaded=True)


class GameClient(GameOperations):
    """The routes of one game: ``client.dbs``, ``client.mtg``, ``client.op``, ``client.pkm``, or
    ``client.game(code)``. Its methods are the game's operations, and helpers over them (``iter_set_cards``,
    ``iter_search_cards``, ``iter_cards``, ``iter_change_pages``, ``download_bulk_file``)."""

    def __init__(self, client: Client, code: str) -> None:
        self.client = client
        self.code = code
        """The game's code: ``pkm``, ``dbs``, ``mtg`` or ``op``."""

    def __repr__(self) -> str:
        return f"<cardcat game {self.code} of {self.client!r}>"

    def _operation(self, operation_id: str) -> Operation:
        if self.code == BASE_GAME:
            return OPERATIONS[BASE_TWINS.get(operation_id, operation_id)]
        op = OPERATIONS[operation_id]
        if op.scope != "game":
            raise errors.CardcatError(f"{operation_id} is a route of the base game ({BASE_GAME}) only")
        return op

    def _path(self, op: Operation, path: Dict[str, Any]) -> Dict[str, Any]:
        return dict(path, game=self.code) if "{game}" in op.path else path

    def _call(
        self,
        operation_id: str,
        path: Dict[str, Any],
        query: Dict[str, Any],
        headers: Dict[str, Any],
        body: Any = None,
    ) -> Any:
        op = self._operation(operation_id)
        return self.client._send(op, self._path(op, path), query, headers, body)

    # Helpers.

    def iter_set_cards(self, set: str, *, language: Optional[str] = None, page_size: int = 200) -> Iterator[Card]:
        """Every product of a set, page after page (``get_set_cards``; one request per page of ``page_size``,
        at most 200). Like the set's pages, the cards' prices are empty: ``get_card`` or ``iter_cards`` fill
        them.

        Raises:
            AmbiguousSet: ``set`` is a code that several sets share (``matches`` lists them): ask by set_id,
                or with ``language``.
        """
        page = 1
        while True:
            answer = self.get_set_cards(set, language=language, page=page, limit=page_size)
            if "disambiguation" in answer:
                raise errors.AmbiguousSet(cast(Dict[str, Any], answer))
            cards = cast(Dict[str, Any], answer)
            yield from cards["cards"]
            if page >= cards["pagination"]["total_pages"]:
                return
            page += 1

    def iter_search_cards(self, q: str, *, page_size: int = 100) -> Iterator[Card]:
        """Every card a search matches (at most 1,000), page after page (``search_cards``; one request per
        page of ``page_size``, at most 100)."""
        page = 1
        while True:
            answer = self.search_cards(q, page=page, limit=page_size)
            yield from answer["results"]
            if page >= answer["pagination"]["total_pages"]:
                return
            page += 1

    def iter_cards(self, ids: Iterable[str]) -> Iterator[Card]:
        """The cards of many ids, with their prices, 100 per request (``get_cards``): in the order of
        ``ids``, each once; ids that name no card are left out (``get_cards`` lists them in ``not_found``)."""
        batch: List[str] = []
        for card_id in ids:
            batch.append(card_id)
            if len(batch) == 100:
                yield from self.get_cards(batch)["data"]
                batch = []
        if batch:
            yield from self.get_cards(batch)["data"]

    def iter_change_pages(
        self,
        since: Union[str, datetime.datetime],
        *,
        page_size: int = 1000,
    ) -> Iterator[Changes]:
        """Every page of the change feed after ``since`` (``list_changes``; one request per page of
        ``page_size``, at most 1,000). Keep the last page's ``until`` and pass it as the next ``since``.

        >>> for page in client.dbs.iter_change_pages(since):
        ...     changed = [c["id"] for c in page["changed"] if not c.get("removed")]
        ...     until = page["until"]
        """
        page = 1
        while True:
            answer = self.list_changes(since, page=page, limit=page_size)
            yield answer
            if page >= answer["pagination"]["total_pages"]:
                return
            page += 1

    def download_bulk_file(
        self,
        name: str,
        path: _PathLike,
        *,
        chunk_size: int = 1 << 16,
    ) -> BulkDownload:
        """Downloads a bulk file (``cards.jsonl.gz`` or ``prices.csv.gz``) to ``path``, streamed, and checks
        its sha256 against the server's. A file already at ``path`` that is the server's current one is
        not downloaded again: the request is a 304, never counted (``downloaded`` is False). The file is
        written to ``path + ".part"`` and renamed when whole.
        """
        op = self._operation("getBulkFile")
        return self.client._download(op, self._path(op, {"name": name}), path, chunk_size)


class PokemonClient(GameClient, BaseGameOperations):
    """The routes of the base game, Pokémon (``client.pkm``): every game's, without the ``/{game}`` prefix,
    and its own (``get_set_image``)."""


def _retry_wait_of(response: Response, attempt: int, retries: int, max_retry_wait: float) -> Optional[float]:
    """Seconds to wait before retrying an error answer (its ``Retry-After``, else 1), or None when it is not
    retried: not a 429 or 503, ``retries`` used up, or a wait longer than ``max_retry_wait``. The sync and the
    async clients both decide by it."""
    if response.status not in RETRY_STATUSES or attempt >= retries:
        return None
    wait = response.retry_after
    if wait is None:
        wait = 1
    if wait > max_retry_wait:
        return None
    return float(wait)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, (list, tuple, set, frozenset)) or (
        not isinstance(value, (str, bytes, int, float)) and hasattr(value, "__iter__")
    ):
        return ",".join(str(v) for v in value)
    return str(value)


def _read(raw: Any, response: Response) -> bytes:
    with raw:
        body: bytes = raw.read()
    coding = (response.headers.get("Content-Encoding") or "").strip().lower()
    if coding == "gzip":
        return gzip.decompress(body)
    if coding not in ("", "identity"):
        raise errors.TransportError(f"{response.url}: the answer is in a coding not asked for: {coding}")
    return body


def _decode(content_type: str, body: bytes) -> Any:
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        return json.loads(body.decode("utf-8")) if body else None
    if media.startswith("text/"):
        return body.decode("utf-8")
    return body


def _error_body(response: Response, body: bytes) -> Optional[Dict[str, Any]]:
    """The error body ``{error, message, ...}`` of an answer, or None when the body is another thing (the
    health's 503, a JSON-RPC error). A body that is no JSON (a proxy's page) becomes one."""
    if "json" in response.content_type:
        try:
            data = json.loads(body.decode("utf-8"))
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            return data
        if isinstance(data, dict):
            return None
    text = body.decode("utf-8", "replace").strip()
    return {"error": f"HTTP {response.status}", "message": text[:500]}


def _sha256_file(path: str) -> Tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
