"""The async client: the same operations as ``Client``, as coroutines, for asyncio programs.

The package has no dependency, and the standard library has no asynchronous HTTP client; so each request is
the sync client's own, sent in a worker thread (``asyncio.to_thread``): the same URLs, headers, decoding,
errors, ETag cache and bulk download, with nothing written twice. What the event loop does itself is waiting:
a 429 or 503 that ``retries`` allows is waited out with ``asyncio.sleep``, never in a thread. Requests of
several tasks run side by side, up to the default executor's threads.

The methods of the operations are generated (``_async_operations.py``); they all end in ``_call``.
"""

import asyncio
import contextvars
import datetime
import os
from typing import Any, AsyncIterator, Callable, Dict, Iterable, List, Optional, Tuple, TypeVar, Union, cast

from . import errors
from ._async_operations import AsyncBaseGameOperations, AsyncGameOperations, AsyncServiceOperations
from ._client import BulkDownload, Cache, Client, GameClient, RateLimit, Response, _retry_wait_of
from ._operation import Operation
from ._operations import GAMES, OPERATIONS
from .schemas import Card, Changes

_T = TypeVar("_T")
_PathLike = Union[str, "os.PathLike[str]"]


class AsyncClient(AsyncServiceOperations):
    """An asyncio client of a cardcat server: ``Client``'s methods, each a coroutine.

    >>> async with cardcat.AsyncClient() as client:       # the key from CARDCAT_API_KEY
    ...     card = await client.dbs.get_card("dbs_3ef29751ae2b88a4")
    ...     async for card in client.pkm.iter_set_cards("BS"):
    ...         print(card["card_info"]["name"])

    The arguments are ``Client``'s. Answers, errors (``APIError`` and its subclasses, ``TransportError``),
    the ETag cache, the page iterators (``async for``) and the bulk download are the sync client's; a 429 or
    503 that ``retries`` allows is waited out with ``asyncio.sleep``. ``last_response`` is the last answer of
    the calling task.
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
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        # The requests' client: it never retries (it would sleep in a worker thread); this one does.
        self.sync = Client(api_key, base_url, timeout=timeout, retries=0, cache=cache, user_agent=user_agent)
        """The sync client that sends the requests (same key, server, cache)."""
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self._response: "contextvars.ContextVar[Optional[Response]]" = contextvars.ContextVar(
            "cardcat_last_response", default=None)
        self._sleep: Callable[[float], Any] = asyncio.sleep

        self.pkm = AsyncPokemonClient(self, "pkm")
        """Pokémon Trading Card Game, the base game: the routes without a prefix (``/cards/{id}``)."""
        self.dbs = AsyncGameClient(self, "dbs")
        """Dragon Ball Super Card Game: ``/dbs/...``."""
        self.mtg = AsyncGameClient(self, "mtg")
        """Magic: The Gathering: ``/mtg/...``."""
        self.op = AsyncGameClient(self, "op")
        """One Piece Card Game: ``/op/...``."""

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing to release (each request opens and closes its own connection); for ``async with``."""

    def __repr__(self) -> str:
        return "cardcat.AsyncClient" + repr(self.sync)[len("cardcat.Client"):]

    @property
    def api_key(self) -> str:
        return self.sync.api_key

    @property
    def base_url(self) -> str:
        return self.sync.base_url

    @property
    def cache(self) -> Optional[Cache]:
        return self.sync.cache

    def game(self, code: str) -> "AsyncGameClient":
        """The sub-client of a game by its code: ``pkm``, ``dbs``, ``mtg`` or ``op`` (``GAMES``)."""
        if code not in GAMES:
            raise ValueError(f"unknown game {code!r}: the games are {', '.join(GAMES)}")
        return cast(AsyncGameClient, getattr(self, code))

    @property
    def last_response(self) -> Optional[Response]:
        """The last answer this task received through this client (its status and headers), or None."""
        return self._response.get()

    @property
    def rate_limit(self) -> Optional[RateLimit]:
        """The ``X-RateLimit-*`` numbers of the last answer (``last_response.rate_limit``), or None."""
        response = self.last_response
        return response.rate_limit if response is not None else None

    # The generated methods of the public routes end here.
    async def _call(
        self,
        operation_id: str,
        path: Dict[str, Any],
        query: Dict[str, Any],
        headers: Dict[str, Any],
        body: Any = None,
    ) -> Any:
        return await self._run(self.sync._send, OPERATIONS[operation_id], path, query, headers, body)

    async def _run(self, send: Callable[..., _T], *args: Any) -> _T:
        """Runs one of the sync client's requests in a worker thread, retrying a 429 or 503 as ``retries``
        allows after ``asyncio.sleep``; keeps the answer as this task's ``last_response``."""
        attempt = 0
        while True:
            try:
                result, response = await asyncio.to_thread(self._in_thread, send, *args)
            except errors.APIError as e:
                self._response.set(e.response)
                wait = _retry_wait_of(e.response, attempt, self.retries, self.max_retry_wait)
                if wait is None:
                    raise
                await self._sleep(wait)
                attempt += 1
                continue
            except errors.NotModified as e:
                self._response.set(e.response)
                raise
            self._response.set(response)
            return result

    def _in_thread(self, send: Callable[..., _T], *args: Any) -> Tuple[_T, Optional[Response]]:
        # last_response is per thread: read it in the thread that sent the request.
        return send(*args), self.sync.last_response


class AsyncGameClient(AsyncGameOperations):
    """The routes of one game, as coroutines: ``client.dbs``, ``client.mtg``, ``client.op``, ``client.pkm``,
    or ``client.game(code)``; and async helpers over them (``iter_set_cards``, ``iter_search_cards``,
    ``iter_cards``, ``iter_change_pages``: ``async for``; ``download_bulk_file``)."""

    def __init__(self, client: AsyncClient, code: str) -> None:
        self.client = client
        self.code = code
        """The game's code: ``pkm``, ``dbs``, ``mtg`` or ``op``."""
        # Which route of the game an operation is: the sync client's own rule.
        self._routes = GameClient(client.sync, code)

    def __repr__(self) -> str:
        return f"<cardcat game {self.code} of {self.client!r}>"

    async def _call(
        self,
        operation_id: str,
        path: Dict[str, Any],
        query: Dict[str, Any],
        headers: Dict[str, Any],
        body: Any = None,
    ) -> Any:
        op: Operation = self._routes._operation(operation_id)
        return await self.client._run(self.client.sync._send, op, self._routes._path(op, path), query, headers, body)

    # Helpers.

    async def iter_set_cards(self, set: str, *, language: Optional[str] = None,
                             page_size: int = 200) -> AsyncIterator[Card]:
        """Every product of a set, page after page (``get_set_cards``): ``async for card in ...``.

        Raises:
            AmbiguousSet: ``set`` is a code that several sets share (``matches`` lists them).
        """
        page = 1
        while True:
            answer = await self.get_set_cards(set, language=language, page=page, limit=page_size)
            if "disambiguation" in answer:
                raise errors.AmbiguousSet(cast(Dict[str, Any], answer))
            cards = cast(Dict[str, Any], answer)
            for card in cards["cards"]:
                yield card
            if page >= cards["pagination"]["total_pages"]:
                return
            page += 1

    async def iter_search_cards(self, q: str, *, page_size: int = 100) -> AsyncIterator[Card]:
        """Every card a search matches (at most 1,000), page after page (``search_cards``)."""
        page = 1
        while True:
            answer = await self.search_cards(q, page=page, limit=page_size)
            for card in answer["results"]:
                yield card
            if page >= answer["pagination"]["total_pages"]:
                return
            page += 1

    async def iter_cards(self, ids: Iterable[str]) -> AsyncIterator[Card]:
        """The cards of many ids, with their prices, 100 per request (``get_cards``), in the order of
        ``ids``; ids that name no card are left out."""
        batch: List[str] = []
        for card_id in ids:
            batch.append(card_id)
            if len(batch) == 100:
                for card in (await self.get_cards(batch))["data"]:
                    yield card
                batch = []
        if batch:
            for card in (await self.get_cards(batch))["data"]:
                yield card

    async def iter_change_pages(
        self,
        since: Union[str, datetime.datetime],
        *,
        page_size: int = 1000,
    ) -> AsyncIterator[Changes]:
        """Every page of the change feed after ``since`` (``list_changes``). Keep the last page's ``until``
        and pass it as the next ``since``."""
        page = 1
        while True:
            answer = await self.list_changes(since, page=page, limit=page_size)
            yield answer
            if page >= answer["pagination"]["total_pages"]:
                return
            page += 1

    async def download_bulk_file(self, name: str, path: _PathLike, *, chunk_size: int = 1 << 16) -> BulkDownload:
        """Downloads a bulk file to ``path``, streamed chunk by chunk to the file (in a worker thread, never
        whole in memory), its sha256 checked; a file already at ``path`` that is the server's current one
        is not downloaded again (a 304, never counted). See ``GameClient.download_bulk_file``."""
        op = self._routes._operation("getBulkFile")
        return await self.client._run(self.client.sync._download, op, self._routes._path(op, {"name": name}),
                                      path, chunk_size)


class AsyncPokemonClient(AsyncGameClient, AsyncBaseGameOperations):
    """The routes of the base game, Pokémon (``client.pkm``), as coroutines: every game's, without the
    ``/{game}`` prefix, and its own (``get_set_image``)."""
