"""Checks of the public API's arguments, so a wrong type is refused in words.

A call with an argument of the wrong type (a list where a player's name
goes, ``None`` where an expression's text goes) raises
``ArgumentTypeError``, a ``CortesRulesError`` that is also a ``TypeError``,
before anything is read or changed, instead of whatever Python error the
value would meet deeper down. Each function returns the value it checked,
so a call site reads ``player = arguments.name(player, "a player")``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ArgumentTypeError

__all__ = ["describe", "flag", "mapping_of_names", "name", "names", "optional_name",
           "path", "text", "whole"]

_SHOWN = 40   # the longest repr quoted in a message


def describe(value: Any) -> str:
    """A value as a message quotes it: its type and a clipped repr (``list [1]``)."""
    try:
        shown = repr(value)
    except Exception:   # noqa: BLE001 - a caller's object whose repr fails
        shown = "?"
    if len(shown) > _SHOWN:
        shown = shown[:_SHOWN - 3] + "..."
    return f"{type(value).__name__} {shown}"


def text(value: Any, what: str) -> str:
    """``value``, a string.

    Raises:
        ArgumentTypeError: it is not one; ``what`` says what it stands for
            (``"an expression"``).
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} is a text (str), not {describe(value)}")
    return value


def name(value: Any, what: str) -> str:
    """``value``, a name: a string (``"spanish"``, ``"S9"``, ``"8.8"``).

    Raises:
        ArgumentTypeError: it is not one.
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} is named by a string, not {describe(value)}")
    return value


def optional_name(value: Any, what: str) -> str | None:
    """``value``, a name or None."""
    return None if value is None else name(value, what)


def names(value: Any, what: str, item: str | None = None) -> str | tuple[str, ...]:
    """``value``, one name (a string) or any iterable of names, as a tuple.

    Args:
        item: what one name stands for, for the message about an item that is
            not a string (``"an option is a rule number or a preset name"``).

    Raises:
        ArgumentTypeError: neither, or an item is not a string.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise ArgumentTypeError(f"{what} is a string or a list of strings, not "
                                f"{describe(value)}")
    items = tuple(value)
    for one in items:
        if not isinstance(one, str):
            raise ArgumentTypeError(f"{item}, not {describe(one)}" if item else
                                    f"{what} is a string or a list of strings; "
                                    f"{describe(one)} is not a string")
    return items


def whole(value: Any, what: str) -> int:
    """``value``, a whole number (an ``int``, not a ``bool``).

    Raises:
        ArgumentTypeError: it is not one.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{what} is a whole number, not {describe(value)}")
    return value


def flag(value: Any, what: str) -> bool:
    """``value``, ``True`` or ``False``.

    Raises:
        ArgumentTypeError: it is anything else.
    """
    if not isinstance(value, bool):
        raise ArgumentTypeError(f"{what} is True or False, not {describe(value)}")
    return value


def path(value: Any, what: str) -> str | os.PathLike[str]:
    """``value``, a path: a string or an ``os.PathLike`` of one.

    Raises:
        ArgumentTypeError: it is anything else.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        try:
            spelt = os.fspath(value)
        except TypeError:
            spelt = None
        if isinstance(spelt, str):
            return value
    raise ArgumentTypeError(f"{what} is a path (a string or a pathlib.Path), not "
                            f"{describe(value)}")


def mapping_of_names(value: Any, what: str) -> dict[str, str]:
    """``value``, a mapping of names to names, as a dict.

    Raises:
        ArgumentTypeError: it is no mapping, or a key or value is not a string.
    """
    if not isinstance(value, Mapping):
        raise ArgumentTypeError(f"{what} is a mapping of strings to strings, not "
                                f"{describe(value)}")
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise ArgumentTypeError(f"{what} is a mapping of strings to strings; "
                                    f"{describe(key)}: {describe(item)} is not")
        out[key] = item
    return out
