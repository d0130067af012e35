"""``cortes-rules selfplay --games N``: many seeded games on workers or Ray, one summary."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from extras import need
from hypothesis import given
from hypothesis import strategies as st

from cortes_rules import CortesRulesError, GameState
from cortes_rules.cli import main
from cortes_rules.progress import ProgressBar
from cortes_rules.rule_numbers import rule_key
from cortes_rules.selfplay import selfplay
from cortes_rules.selfplay_many import GameResult, GameSpec, Summary, play_many

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"
SCORED = (
    '\nrule 2.5 "Scoring" {\n'
    '  summary "The race ends once any runner has walked: red wins."\n'
    '  finish when any(u in pieces where u.walked >= 1) winner red "a runner has walked"\n'
    '}\n')
GAMES, FIRST_SEED = 2, 10
"""The Cortés games the tests play: few, and one turn each, so that they take seconds."""


@pytest.fixture(scope="module")
def cortes_summary() -> Summary:
    """Two one-turn games of Cortés, played in this process."""
    return play_many(GameSpec("cortes", max_turns=1), games=GAMES, seed=FIRST_SEED)


@pytest.fixture
def race(tmp_path: Path) -> Path:
    """The minimal race with an ending: every game is over within a few decisions."""
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + SCORED, encoding="utf-8")
    return path


def cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["selfplay", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.rule("4.1")
def test_the_summary_adds_up_and_counts_what_separate_games_cite(
        cortes_summary: Summary) -> None:
    data = cortes_summary.as_dict()
    assert data["games"] == GAMES and data["seeds"] == {"first": FIRST_SEED, "count": GAMES}
    assert data["finished"] + data["stopped_at_turn_cap"] + data["errored"] == GAMES
    assert data["stopped_at_turn_cap"] == GAMES and data["outcomes"] == {}
    assert data["max_turns"] == 1 and data["errors"] == []
    cited: Counter[str] = Counter()
    decisions, actions = [], []
    for seed in range(FIRST_SEED, FIRST_SEED + GAMES):
        final: list[GameState] = []
        played = selfplay("cortes", seed=seed, max_turns=1, after_each=final.append)
        cited.update(rule for entry in final[-1].log for rule in entry.rules)
        decisions.append(played.decisions)
        actions.append(played.decisions + played.chance_events)
    assert data["citations"] == dict(cited) and sum(cited.values()) > 0
    assert list(data["citations"]) == sorted(cited, key=rule_key)   # 2.10 after 2.9
    assert data["lengths"]["decisions"]["min"] == min(decisions)
    assert data["lengths"]["decisions"]["max"] == max(decisions)
    assert data["lengths"]["actions"]["mean"] == round(sum(actions) / GAMES, 2)


@pytest.mark.rule("4.1")
def test_two_worker_processes_give_the_same_summary(cortes_summary: Summary,
                                                    tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "cortes_rules", "selfplay", "--games",
                           str(GAMES), "--seed", str(FIRST_SEED), "--max-turns", "1",
                           "--workers", "2", "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""   # no progress bar into a pipe
    assert json.loads(out.read_text(encoding="utf-8")) == cortes_summary.as_dict()
    assert done.stdout.splitlines() == list(cortes_summary.lines())


@pytest.mark.rule("4.1")
def test_ray_tasks_give_the_same_summary(cortes_summary: Summary, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    need("ray", "ray")
    out = tmp_path / "summary.json"
    status, printed, err = cli("--games", str(GAMES), "--seed", str(FIRST_SEED),
                               "--max-turns", "1", "--ray", "--workers", "2",
                               "--json", str(out), capsys=capsys)
    assert status == 0 and err == ""
    assert json.loads(out.read_text(encoding="utf-8")) == cortes_summary.as_dict()
    assert printed.splitlines() == list(cortes_summary.lines())
    import ray
    assert not ray.is_initialized()   # the instance started for the run is shut down


@pytest.mark.rule("2.2")
def test_finished_games_are_counted_by_winner(race: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli("--games", "5", "--rulebook", str(race), capsys=capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == ("Self-play of minimal_race: 5 games, seeds 0-4, set-up standard, "
                        "optional rules on: none, turn cap 20")
    assert lines[1] == "Finished 5, stopped at the turn cap 0, errored 0"
    assert lines[3].split() == ["Winner", "Games"] and lines[4].split() == ["red", "5"]
    data = play_many(GameSpec(str(race)), games=5).as_dict()
    assert data["outcomes"] == {"red": 5} and data["finished"] == 5
    # every game ends with the walk the ending rule counts: one 2.2 line a decision or more
    assert data["citations"]["2.2"] >= data["lengths"]["decisions"]["min"] * 5
    assert play_many(GameSpec(str(race)), games=5, workers=2).as_dict() == data


@pytest.mark.rule("4.1")
def test_a_game_that_fails_is_listed_with_its_seed(race: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import cortes_rules.selfplay_many as many

    def broken(book: object, *, seed: int, **kwargs: object) -> object:
        if seed == 2:
            raise CortesRulesError("seed 2: the rules leave it stuck\nsecond line")
        return selfplay(book, seed=seed, **kwargs)   # type: ignore[arg-type]

    monkeypatch.setattr(many, "selfplay", broken)
    status, out, _ = cli("--games", "4", "--rulebook", str(race), capsys=capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[1] == "Finished 3, stopped at the turn cap 0, errored 1"
    assert lines[-1] == "seed 2: the rules leave it stuck"
    data = play_many(GameSpec(str(race)), games=4).as_dict()
    assert data["errors"] == [{"seed": 2, "error": "seed 2: the rules leave it stuck"}]
    assert data["outcomes"] == {"red": 3}


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "argument --games: must be at least 1, not 0"),
    (["--games", "2", "--workers", "0"], "argument --workers: must be at least 1, not 0"),
    (["--games", "two"], "argument --games: not a whole number: 'two'"),
    (["--seed", "1", "--workers", "2"], "--workers goes with --games N"),
    (["--seed", "1", "--ray", "--json", "x"], "--ray, --json go with --games N"),
    (["--games", "2", "--address", "auto"], "--address goes with --ray"),
    (["--max-turns", "1"], "required: --seed (or --games)"),
])
def test_bad_command_lines_exit_2(args: list[str], message: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["selfplay", *args])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("cortes-rules: ") and message in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.rule("4.1")
def test_ray_missing_is_one_line(race: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)   # import ray fails as if not installed
    status, out, err = cli("--games", "2", "--ray", "--rulebook", str(race), capsys=capsys)
    assert status == 1 and out == ""
    assert err == ("cortes-rules: --ray needs Ray, which is not installed: "
                   "pip install 'cortes-rules[ray]'\n")


@pytest.mark.rule("4.1")
def test_bad_arguments_through_the_api(race: Path) -> None:
    spec = GameSpec(str(race))
    with pytest.raises(CortesRulesError, match="number of games must be at least 1"):
        play_many(spec, games=0)
    with pytest.raises(CortesRulesError, match="number of workers must be at least 1"):
        play_many(spec, games=1, workers=0)
    with pytest.raises(CortesRulesError, match="whole number"):
        play_many(spec, games=True)
    with pytest.raises(CortesRulesError, match="only used with Ray"):
        play_many(spec, games=1, address="auto")
    with pytest.raises(CortesRulesError, match="no preset 'expert'"):
        play_many(GameSpec("cortes", options=("expert",)), games=1)


@pytest.mark.rule("4.1")
def test_the_progress_bar_draws_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    stream = io.StringIO()
    bar = ProgressBar(4, "selfplay", stream=stream, enabled=True)
    for _ in range(4):
        bar.tick()
    bar.close()
    drawn = stream.getvalue()
    assert "\rselfplay [" + "#" * 30 + "] 4/4" in drawn and drawn.endswith("\n")
    assert "] 0/4" not in drawn and drawn.count("] 4/4") == 1   # close() draws no repeat
    quiet = io.StringIO()   # not a terminal: nothing, by default
    bar = ProgressBar(4, stream=quiet)
    bar.tick(4)
    bar.close()
    assert quiet.getvalue() == "" and not bar.enabled and bar.done == 4


results = st.builds(
    GameResult, seed=st.integers(0, 50), finished=st.booleans(),
    winners=st.lists(st.sampled_from(["red", "blue"]), max_size=2, unique=True).map(tuple),
    decisions=st.integers(0, 500), actions=st.integers(0, 600),
    citations=st.dictionaries(st.sampled_from(["2.2", "4.1", "8.10", "8.9", "13.1"]),
                              st.integers(1, 30)).map(lambda d: tuple(sorted(d.items()))),
    error=st.one_of(st.none(), st.just("stuck")))


@pytest.mark.rule("4.1")
@given(st.lists(results, min_size=1, max_size=12))
def test_any_summary_adds_up(games: list[GameResult]) -> None:
    data = Summary("race", 0, None, (), None, (), 1, tuple(games)).as_dict()
    played = [g for g in games if g.error is None]
    assert data["finished"] + data["stopped_at_turn_cap"] + data["errored"] == len(games)
    assert sum(data["outcomes"].values()) == data["finished"]
    assert len(data["errors"]) == data["errored"]
    expected: Counter[str] = Counter()
    for game in played:
        expected.update(dict(game.citations))
    assert data["citations"] == dict(expected)
    assert list(data["citations"]) == [r for r in ["2.2", "4.1", "8.9", "8.10", "13.1"]
                                       if r in expected]
    for name in ("decisions", "actions"):
        spread = data["lengths"][name]
        if not played:
            assert spread == {}
            continue
        assert spread["min"] <= spread["median"] <= spread["max"]
        assert spread["min"] <= spread["mean"] <= spread["max"]
    json.dumps(data)   # plain data
