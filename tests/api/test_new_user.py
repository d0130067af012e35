"""The rough edges a new user hits first: the set-up, the demonstration with other
dice, checking one file, messages that name the wrong argument, reprs, comparing
states, starting a game with nothing on the map, and docstrings."""

from __future__ import annotations

import inspect
import io
import tomllib
import typing
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.cli import main
from cortes_rules.demo import run_demo

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"


@pytest.mark.rule("4.2")
def test_editable_install_is_a_path_type_checkers_follow_and_the_package_is_typed() -> None:
    # An import-hook editable install hides the package from mypy; the compat
    # mode writes the checkout's folder into a .pth file, which mypy reads.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["distutils"]["editable_wheel"]["mode"] == "compat"
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["cortes_rules"]
    assert (ROOT / "cortes_rules" / "py.typed").is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pip install -e '.[test]' && python -m pytest" in readme
    assert "mypy --strict" in readme


@pytest.mark.rule("4.2")
def test_readme_says_why_every_install_fetches_cython() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (ROOT / "src_ext" / "_core.pyx").is_file()
    assert "to come" not in readme.split("`src_ext/`", 1)[1][:80]
    assert "every install fetches Cython" in " ".join(readme.split())


@pytest.mark.rule("8.19")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_demo_with_other_dice_plays_to_the_end(seed: int) -> None:
    out = io.StringIO()
    assert run_demo(seed=seed, out=out) == 0
    text = out.getvalue()
    assert f"(With seed {seed} the record's decisions stop fitting the dice at line " in text
    assert f"chosen at random, seeded by {seed}.)" in text
    assert text.endswith("Game over: the turn limit (1) was reached; winner: none.\n")
    again = io.StringIO()
    run_demo(seed=seed, out=again)
    assert again.getvalue() == text


@pytest.mark.rule("8.3")
def test_checking_one_file_of_a_rulebook_says_to_check_its_folder(
        capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", str(ROOT / "rulebook" / "cortes" / "08-combat.rules")])
    err = capsys.readouterr().err
    assert status == 1
    assert err.splitlines()[-1].endswith("so check them together: cortes-rules check cortes")
    assert main(["check", str(MINIMAL)]) == 0      # a rulebook of one file: no note
    assert "note:" not in capsys.readouterr().err


@pytest.mark.rule("2.2")
def test_a_missing_map_file_is_named_as_missing(tmp_path: Path) -> None:
    with pytest.raises(cortes_rules.CortesRulesError,
                       match=r"none\.rules: no such file or directory \(given as map=\)"):
        cortes_rules.load("cortes", map=tmp_path / "none.rules")
    with pytest.raises(cortes_rules.CortesRulesError,
                       match=r"no \*\.rules files in this folder \(given as map=\)"):
        cortes_rules.load("cortes", map=tmp_path)


@pytest.mark.rule("7.1")
def test_an_unknown_piece_or_hex_names_the_argument_and_the_nearest_names(
        book: cortes_rules.Rulebook) -> None:
    with pytest.raises(cortes_rules.NotationError) as piece:
        book.parse_action("move S99 3011")
    assert str(piece.value) == ("'S99' is not a piece for 'move' (argument 1, unit); "
                                "did you mean 'S9' or 'S39' or 'S29'?")
    with pytest.raises(cortes_rules.NotationError, match=r"\(argument 2, to\); did you "
                       r"mean '3019'"):
        book.parse_action("move S9 3099")
    with pytest.raises(cortes_rules.NotationError,
                       match=r"'S9' is not a hex for 'attack' \(argument 1, target\): it is "
                       r"a piece$"):
        book.parse_action("attack S9")
    with pytest.raises(cortes_rules.NotationError,
                       match=r"positions: no place '30111' \(for S9\) in this rulebook; did "
                       r"you mean '3011'"):
        book.new_game(positions={"S9": "30111"})
    state = book.new_game(setup="demo")
    with pytest.raises(cortes_rules.NotationError, match=r"no piece 'S99' .*did you mean 'S9'"):
        state.attribute("S99", "steps")


@pytest.mark.rule("8.14")
def test_a_rule_repr_is_short(book: cortes_rules.Rulebook) -> None:
    shown = repr(book.rule("8.14"))
    assert shown.startswith("<Rule 8.14 'Major fortress', 1 statement, rulebook/cortes/")
    assert "Contribute(" not in shown and len(shown) < 120


@pytest.mark.rule("7.2")
def test_same_position_compares_states_and_equality_stays_identity(
        book: cortes_rules.Rulebook) -> None:
    first, second = book.new_game(setup="demo", seed=1), book.new_game(setup="demo", seed=2)
    assert first.same_position(second)             # the seed is not the position
    assert first != second and first == first       # == is identity: states are mutable
    assert {first: 1, second: 2}[second] == 2       # ...so they stay usable as keys
    first.apply("end")
    assert not first.same_position(second)
    second.apply("end")
    assert first.same_position(second)
    copy = first.clone()
    copy.apply("move S9 3011")
    assert not copy.same_position(first)
    with pytest.raises(cortes_rules.CortesRulesError):
        first.same_position("demo")  # type: ignore[arg-type]


@pytest.mark.rule("5.1")
def test_outcome_is_typed_and_a_state_exposes_no_book(book: cortes_rules.Rulebook) -> None:
    hints = typing.get_type_hints(cortes_rules.GameState.outcome)
    assert hints["return"] == cortes_rules.Outcome | None
    assert not hasattr(book.new_game(setup="demo"), "book")


@pytest.mark.rule("3.1")
def test_no_set_up_for_a_rulebook_without_a_set_up_stage_is_refused(
        book: cortes_rules.Rulebook) -> None:
    race = cortes_rules.load(MINIMAL)
    assert race.setups and not race.opening_phases
    with pytest.raises(cortes_rules.CortesRulesError,
                       match=r"name a set-up \(setup=\.\.\.; set-ups: standard\), or pass "
                       r"positions=\.\.\. \(positions=\{\} for an empty board\)"):
        race.new_game()
    assert race.new_game(positions={}).positions() == {}
    assert race.new_game(setup="standard").positions() == {"R": "start", "B": "start"}
    assert race.new_game(positions={"R": "meadow"}).positions() == {"R": "meadow"}
    fresh = book.new_game()                        # Cortés has a set-up stage (section 3)
    assert fresh.phase == "spanish_set_up" and fresh.legal_actions()


@pytest.mark.rule("4.2")
def test_every_public_member_has_a_docstring() -> None:
    missing = []
    for name in cortes_rules.__all__:
        obj = getattr(cortes_rules, name)
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for member, value in vars(obj).items():
            if member.startswith("_"):
                continue
            function = value.fget if isinstance(value, property) else value
            if (callable(function) or isinstance(value, property)) and \
                    not (getattr(function, "__doc__", None) or "").strip():
                missing.append(f"{name}.{member}")
    assert missing == []
