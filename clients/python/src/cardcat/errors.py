"""The exceptions the client raises.

Every one is a ``CardcatError``. An answer of the API with an error status is an ``APIError`` (a subclass per
status: ``NotFound``, ``RateLimited``, ...) carrying the error body's ``error`` (short and stable: test on it),
``message`` (what to fix, in English; it may change) and its other fields (``did_you_mean``, ``suggestions``,
``limits``, ...). A request that got no answer (the server cannot be reached, a timeout) is a
``TransportError``.
"""

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Type

if TYPE_CHECKING:  # pragma: no cover
    from ._client import Response
    from .schemas import RateLimitUsage, SetCandidate


class CardcatError(Exception):
    """The base class of every exception of this package."""


class TransportError(CardcatError):
    """The request got no answer: the server cannot be reached, the connection broke, or it timed out."""


class NotModified(CardcatError):
    """A 304 to an explicit ``if_none_match``: the answer has not changed since that ETag (never counted).

    Raised only when you pass ``if_none_match`` yourself; a client made with ``cache=`` answers the copy it
    kept instead.
    """

    def __init__(self, response: "Response") -> None:
        super().__init__(f"304 Not Modified: {response.url} still has the ETag {response.etag}")
        self.response = response
        self.etag: Optional[str] = response.etag


class AmbiguousSet(CardcatError):
    """A set code that several sets share, where one set is needed (``iter_set_cards``).

    ``matches`` are the candidates (``set_id``, ``set_code``, ``name``, ``language``, ``release_date``): ask
    again by the ``set_id`` of the one you want, or with ``language``.
    """

    def __init__(self, body: Dict[str, Any]) -> None:
        super().__init__(body.get("message", "The set code matches several sets."))
        self.body = body
        self.message: str = body.get("message", "")
        self.matches: "List[SetCandidate]" = body.get("matches", [])


class APIError(CardcatError):
    """An answer of the API with an error status, and its body ``{error, message, ...}``."""

    def __init__(self, status: int, body: Dict[str, Any], response: "Response") -> None:
        self.status = status
        """The HTTP status."""
        self.body = body
        """The whole error body."""
        self.error: str = str(body.get("error", ""))
        """Short and stable (``Card not found``, ``Rate limit exceeded``, ...): test on it."""
        self.message: str = str(body.get("message", ""))
        """What to fix, in English; it may change."""
        self.response = response
        """The answer's status, headers and rate limits."""
        text = f"{status} {self.error}: {self.message}"
        if body.get("did_you_mean"):
            text += f" (did you mean {body['did_you_mean']}?)"
        super().__init__(text)

    @property
    def did_you_mean(self) -> Optional[str]:
        """The path you probably meant (404 ``Endpoint not found``; 400 and 404 for the other game's id)."""
        return self.body.get("did_you_mean")

    @property
    def docs(self) -> Optional[str]:
        """The documentation's URL (404 ``Endpoint not found``)."""
        return self.body.get("docs")

    @property
    def example(self) -> Optional[str]:
        """A curl line for the very request, with the key header in place (401)."""
        return self.body.get("example")

    @property
    def suggestions(self) -> "List[SetCandidate]":
        """Sets whose name matches an unknown set (404 ``Set not found``); ``[]`` when none."""
        return self.body.get("suggestions") or []

    @property
    def matches(self) -> List[Dict[str, str]]:
        """The sets an ambiguous code matches (409 ``Ambiguous set code``); ``[]`` when none."""
        return self.body.get("matches") or []

    @property
    def limits(self) -> "Optional[RateLimitUsage]":
        """The pool's hourly and daily ``{limit, used, remaining}`` (429)."""
        return self.body.get("limits")

    @property
    def redeem_url(self) -> Optional[str]:
        """Where to start the 7-day trial (403, when it was never started)."""
        return self.body.get("redeem_url")

    @property
    def upgrade_url(self) -> Optional[str]:
        """Where to upgrade the plan (403, when the trial has ended)."""
        return self.body.get("upgrade_url")

    @property
    def retry_after(self) -> Optional[int]:
        """Seconds to wait before retrying, from ``Retry-After`` (429, 502, 503); else None."""
        return self.response.retry_after

    @property
    def request_id(self) -> Optional[str]:
        """The answer's ``X-Request-Id``: quote it when you report a problem."""
        return self.response.request_id


class BadRequest(APIError):
    """400: a parameter is wrong (``Invalid parameter``, ``Invalid or corrupted card ID``, ...)."""


class Unauthorized(APIError):
    """401: ``API key required`` (no key sent) or ``Invalid API key``."""


class PlanRequired(APIError):
    """403 ``Plan upgrade required``: a paid endpoint; see ``redeem_url`` and ``upgrade_url``."""


class NotFound(APIError):
    """404: ``Card not found``, ``Set not found`` (with ``suggestions``), ``Endpoint not found`` (with
    ``did_you_mean``), ``Image not found``."""


class Conflict(APIError):
    """409 ``Ambiguous set code`` (the base game's set image), with ``matches``."""


class RateLimited(APIError):
    """429 ``Rate limit exceeded``: ``retry_after`` seconds until the exhausted window ends; ``limits`` the
    pool's numbers. A 429 is never counted."""


class ServerError(APIError):
    """5xx: a fault on the server (500), an image source out of reach (502), ..."""


class ServiceUnavailable(ServerError):
    """503: the server is loading its catalogue, or too busy to search; retry after ``retry_after`` seconds."""


_BY_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: PlanRequired,
    404: NotFound,
    409: Conflict,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_class(status: int) -> Type[APIError]:
    """The APIError subclass of a status."""
    cls = _BY_STATUS.get(status)
    if cls is not None:
        return cls
    return ServerError if status >= 500 else APIError
