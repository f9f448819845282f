"""A runtime check of a decoded JSON value against a type of cardcat.schemas (TypedDicts, Literal, Optional,
List, Dict, Union): the tests hold every answer of the server against the type its method declares, so that
the generated types are true to what the server sends. Keys a TypedDict does not name are an error (the
document's objects are ``additionalProperties: false``)."""

import typing
from typing import Any, List

_TYPED_DICT_META = type(typing.TypedDict("_Probe", {}))


def problems(value: Any, tp: Any, where: str = "answer") -> List[str]:
    """What is wrong with value as a tp, each with where it is; [] when nothing."""
    if tp is Any:
        return []
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union:
        for alt in args:
            if not problems(value, alt, where):
                return []
        return [f"{where}: {value!r:.80} is none of {tp}"]
    if origin is typing.Literal:
        # True == 1: compare types too.
        if any(value == a and type(value) is type(a) for a in args):
            return []
        return [f"{where}: {value!r:.80} is not one of {args}"]
    if tp is type(None):
        return [] if value is None else [f"{where}: {value!r:.80} is not null"]
    if origin in (list, List):
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__} is not a list"]
        out: List[str] = []
        for i, item in enumerate(value):
            out += problems(item, args[0], f"{where}[{i}]")
        return out
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} is not an object"]
        out = []
        for k, v in value.items():
            out += problems(v, args[1], f"{where}.{k}")
        return out
    if isinstance(tp, _TYPED_DICT_META):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} is not an object ({tp.__name__})"]
        hints = typing.get_type_hints(tp)
        out = []
        for key in sorted(tp.__required_keys__ - value.keys()):
            out.append(f"{where}: the required key {key!r} of {tp.__name__} is missing")
        for key in sorted(value.keys() - hints.keys()):
            out.append(f"{where}: {tp.__name__} has no key {key!r}")
        for key in sorted(value.keys() & hints.keys()):
            out += problems(value[key], hints[key], f"{where}.{key}")
        return out
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, tp)
    return [] if ok else [f"{where}: {value!r:.80} is not a {getattr(tp, '__name__', tp)}"]
