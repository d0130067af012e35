"""The shapes of the server's requests: each endpoint's fields and their types.

Every request body and query is checked here before the games are touched:
a body that is not a JSON object, nested too deep, too long, with a field
that the endpoint does not take or a value of the wrong type is refused
with a 400 (413 when too long) and a one-line reason. Nothing here knows a
game.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import CortesRulesError

MAX_BODY = 4_000_000
"""Bytes a request body may hold (a record of a long game is well under it)."""
MAX_TEXT = 1_000
"""Characters of a name, an action's text or an id in a request."""
MAX_SEED = 2**63 - 1
SHOWN = 60
"""Characters of a refused value repeated in an error message."""


class ServeError(CortesRulesError):
    """A request the server refuses; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400,
                 rules: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.rules = rules


def shown(value: object) -> str:
    """A value of a request as an error message repeats it: one short line."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


@dataclass(frozen=True)
class Field:
    """One field of a request: its name, the JSON types it takes, and a limit."""

    name: str
    kinds: tuple[str, ...]
    """Among ``"text"``, ``"whole"`` (a whole number), ``"texts"`` (a list of
    texts) and ``"null"``."""
    longest: int = MAX_TEXT
    """The most characters a text may have."""

    def check(self, value: Any) -> Any:
        for kind in self.kinds:
            if _fits(kind, value, self.longest):
                return value
        wanted = " or ".join(_WORDS[k] for k in self.kinds)
        raise ServeError(f"{self.name!r} is {wanted}, not {_kind_of(value)}")


_WORDS = {"text": "a text", "whole": "a whole number", "texts": "a list of texts",
          "null": "null"}


def _fits(kind: str, value: Any, longest: int) -> bool:
    if kind == "null":
        return value is None
    if kind == "text":
        if not isinstance(value, str):
            return False
        if len(value) > longest:
            raise ServeError(f"a text of {len(value)} characters is too long here "
                             f"(at most {longest})")
        return True
    if kind == "whole":
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        if not 0 <= value <= MAX_SEED:
            raise ServeError(f"a whole number from 0 to {MAX_SEED} is wanted, not "
                             f"{shown(value)}")
        return True
    if kind == "texts":
        return isinstance(value, list) and len(value) <= 100 and all(
            _fits("text", v, longest) for v in value)
    raise AssertionError(kind)


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return f"the number {shown(value)}"
    if isinstance(value, str):
        return f"the text {shown(value)}"
    if isinstance(value, list):
        return "a list"
    return "an object"


TEXT, WHOLE = ("text",), ("whole",)
MAYBE_TEXT = ("text", "null")

NEW = (Field("seed", WHOLE), Field("setup", MAYBE_TEXT),
       Field("options", ("text", "texts", "null")), Field("mode", TEXT),
       Field("seat", MAYBE_TEXT))
LOAD = (Field("text", TEXT, longest=MAX_BODY), Field("mode", TEXT), Field("seat", MAYBE_TEXT))
JOIN = (Field("player", TEXT),)
ACT = (Field("player", MAYBE_TEXT), Field("action", ("text", "whole")))
MOVE = (Field("player", MAYBE_TEXT), Field("unit", TEXT), Field("to", TEXT))
UNDO = (Field("player", MAYBE_TEXT),)
VIEW_QUERY = (Field("player", TEXT), Field("unit", TEXT), Field("kind", TEXT),
              Field("since", TEXT))
REACH_QUERY = (Field("player", TEXT), Field("unit", TEXT))
SAVE_QUERY = (Field("player", TEXT),)


def fields(data: Mapping[str, Any], shape: tuple[Field, ...],
           required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields of a request checked against its shape; absent ones are left out.

    Raises:
        ServeError: a field the shape does not name, one of the wrong type, or
            a required one missing.
    """
    known = {f.name: f for f in shape}
    out: dict[str, Any] = {}
    for name, value in data.items():
        field = known.get(name)
        if field is None:
            raise ServeError(f"no field {shown(name)} here (fields: {', '.join(known)})")
        out[name] = field.check(value)
    for name in required:
        if out.get(name) is None:
            raise ServeError(f"the field {name!r} is needed")
    return out


def query(params: Any, shape: tuple[Field, ...], required: tuple[str, ...] = ()
          ) -> dict[str, Any]:
    """A request's query (Starlette's ``QueryParams``) checked against its shape."""
    given: dict[str, Any] = {}
    for name, value in params.multi_items():
        if name in given:
            raise ServeError(f"{shown(name)} is given twice")
        given[name] = value
    return fields(given, shape, required)


async def body(chunks: AsyncIterator[bytes]) -> dict[str, Any]:
    """A request body as a JSON object (an empty body is an empty object).

    Raises:
        ServeError: the body is too long (413), not JSON, nested too deep, or
            not an object.
    """
    data = bytearray()
    async for chunk in chunks:
        data.extend(chunk)
        if len(data) > MAX_BODY:
            raise ServeError(f"the request's body is longer than {MAX_BODY} bytes", 413)
    if not data.strip():
        return {}
    try:
        parsed = json.loads(bytes(data))
    except RecursionError:
        raise ServeError("the request's body is nested too deep") from None
    except ValueError as error:
        reason = str(error).splitlines()[0] if str(error) else "not JSON"
        raise ServeError(f"the request's body is not JSON ({reason[:80]})") from None
    if not isinstance(parsed, dict):
        raise ServeError("the request's body is not a JSON object")
    return parsed
