"""Rule numbers: what one looks like, and the order rules are listed in.

A printed rulebook numbers its rules as a section and a rule in it. Cortés
writes the section in Arabic figures (``8.14``, ``8.11a``); Grands Stratèges
writes it in Roman ones (``III.4``). The language takes both and keeps the
number as printed; everything that lists rules (coverage, presets, citations
of a hook, the reference) orders them by the value of each part, so ``2.9``
comes before ``2.10``, ``8.11`` before ``8.11a`` and ``IX.1`` before ``X.1``.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The section: Arabic figures, or Roman ones in capitals (checked for being a
# well-formed numeral by ``roman_value``). The rule: figures and one letter.
RULE_NUMBER_PATTERN = r"(?:\d+|[IVXLCDM]+)\.\d+[a-z]?"
RULE_NUMBER = re.compile(RULE_NUMBER_PATTERN)

_ROMAN_DIGITS = (("M", 1000), ("CM", 900), ("D", 500), ("CD", 400), ("C", 100),
                 ("XC", 90), ("L", 50), ("XL", 40), ("X", 10), ("IX", 9), ("V", 5),
                 ("IV", 4), ("I", 1))
_PARTS = re.compile(r"(\d+)|([A-Za-z]+)")


def is_rule_number(text: str) -> bool:
    """Whether ``text`` is a whole, well-formed rule number."""
    if RULE_NUMBER.fullmatch(text) is None:
        return False
    section = text.split(".", 1)[0]
    return section.isdigit() or roman_value(section) is not None


def roman_value(numeral: str) -> int | None:
    """The value of a Roman numeral in its usual written form, or None.

    Only the canonical form counts (``IV``, not ``IIII``; ``XC``, not
    ``LXL``), so each value has one spelling and a typo is refused rather
    than read as some other number.
    """
    if not numeral:
        return None
    value, rest = 0, numeral
    for letters, worth in _ROMAN_DIGITS:
        while rest.startswith(letters):
            value += worth
            rest = rest[len(letters):]
    return value if not rest and to_roman(value) == numeral else None


def to_roman(value: int) -> str:
    """``value`` (1 or more) as a Roman numeral."""
    out = []
    for letters, worth in _ROMAN_DIGITS:
        count, value = divmod(value, worth)
        out.append(letters * count)
    return "".join(out)


@lru_cache(maxsize=4096)
def rule_key(number: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key of a rule number, Arabic or Roman, by the value of each part.

    Figures sort by their value, letters after them (``8.11`` < ``8.11a`` <
    ``8.12``), a Roman section by the value of its numeral. Any string gets a
    key, so sorting never fails on something that is not a rule number.
    """
    parts: list[tuple[int, int | str]] = []
    for index, match in enumerate(_PARTS.finditer(number)):
        digits, letters = match.groups()
        if digits is not None:
            parts.append((0, int(digits)))
            continue
        roman = roman_value(letters) if index == 0 else None
        parts.append((0, roman) if roman is not None else (1, letters))
    return tuple(parts)
