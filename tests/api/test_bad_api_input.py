"""Bad input to the public API: refused with a CortesRulesError, the state left alone.

- records whose comments hold characters that str.splitlines takes for
  line ends.

Each test pins a defect found in review or by tests/fuzz/test_fuzz.py.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import RecordError
from cortes_rules.record import parse_record, replay

# ================================================================== records


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"])
def test_a_line_break_character_in_a_record_comment_plays_nothing(
        book: cortes_rules.Rulebook, char: str) -> None:
    text = (f"rulebook cortes\nsetup demo\nseed 8\n# a comment{char}move S1 3011\n"
            f"move S9 3011  # cavalry{char}move S1 3011\nmove S9 30\n")
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text, "odd.record"), book)
    assert str(caught.value).startswith("odd.record:6: ")
    record = parse_record(text.replace("move S9 30\n", ""), "odd.record")
    assert [str(a) for _, a in record.actions] == ["move S9 3011"]
    assert [line for line, _ in record.actions] == [5]


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("header", ["seed " + "9" * 5000, "seed x", "turn-limit 1.5"])
def test_a_bad_record_header_is_a_record_error(header: str) -> None:
    with pytest.raises(RecordError, match="seed and turn-limit must be whole numbers"):
        parse_record(f"rulebook cortes\n{header}\n", "bad.record")
