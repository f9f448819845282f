"""cardcat: a typed Python client of the cardcat API (trading-card catalogues and prices).

    import cardcat

    client = cardcat.Client()  # the key from CARDCAT_API_KEY, the server http://localhost:8080
    for card in client.pkm.iter_set_cards("604"):
        print(card["card_info"]["card_number"], card["card_info"]["name"])

``AsyncClient`` has the same methods as coroutines, for asyncio. ``Client`` has the public routes; ``client.pkm`` (Pokémon, the base game), ``client.dbs``, ``client.mtg`` and
``client.op`` the routes of each game. Answers are plain dicts, typed by the TypedDicts of ``cardcat.schemas``;
errors are the exceptions of ``cardcat.errors``, all importable from here. ``verify_webhook`` checks the signature of
a webhook delivery (``cardcat.webhooks``).
"""

from . import schemas
from ._async import AsyncClient, AsyncGameClient, AsyncPokemonClient
from ._client import (
    DEFAULT_BASE_URL,
    RETRY_STATUSES,
    BulkDownload,
    Cache,
    CachedAnswer,
    Client,
    GameClient,
    MemoryCache,
    PokemonClient,
    RateLimit,
    Response,
)
from ._operation import Operation
from ._operations import BASE_GAME, BASE_TWINS, GAMES, OPERATIONS, GameCode
from ._version import __version__
from .errors import (
    AmbiguousSet,
    APIError,
    BadRequest,
    CardcatError,
    Conflict,
    NotFound,
    NotModified,
    PlanRequired,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    TransportError,
    Unauthorized,
)
from .webhooks import DEFAULT_WEBHOOK_TOLERANCE, WEBHOOK_SIGNATURE_HEADER, WebhookSignatureError, verify_webhook

__all__ = [
    "APIError",
    "AmbiguousSet",
    "AsyncClient",
    "AsyncGameClient",
    "AsyncPokemonClient",
    "BASE_GAME",
    "BASE_TWINS",
    "BadRequest",
    "BulkDownload",
    "Cache",
    "CachedAnswer",
    "CardcatError",
    "Client",
    "Conflict",
    "DEFAULT_BASE_URL",
    "DEFAULT_WEBHOOK_TOLERANCE",
    "GAMES",
    "GameClient",
    "GameCode",
    "MemoryCache",
    "NotFound",
    "NotModified",
    "OPERATIONS",
    "Operation",
    "PlanRequired",
    "PokemonClient",
    "RETRY_STATUSES",
    "RateLimit",
    "RateLimited",
    "Response",
    "ServerError",
    "ServiceUnavailable",
    "TransportError",
    "Unauthorized",
    "WEBHOOK_SIGNATURE_HEADER",
    "WebhookSignatureError",
    "__version__",
    "schemas",
    "verify_webhook",
]
