"""What the client needs to know of one operation of the OpenAPI document (the table is generated)."""

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Operation:
    """One operation of the document, as ``OPERATIONS`` lists it by operationId."""

    operation_id: str
    method: str
    path: str
    """The path template: ``/{game}/cards/{id}``."""
    scope: str
    """``service`` (public routes), ``game`` (every game's, ``/{game}/...``) or ``base`` (the base game's)."""
    keyed: bool
    """Whether it needs a key."""
    conditional: bool
    """Whether it takes ``If-None-Match`` (and answers 304)."""
    binary: bool
    """Whether its answer is bytes (an image, a gzip file)."""
    accept: str
    """The media types of its answer (``Accept``): ``application/json``, ``image/*``, ..."""
    lenient: Tuple[int, ...] = ()
    """Error statuses that can carry the success body (the health's 503, a JSON-RPC error's 400)."""
