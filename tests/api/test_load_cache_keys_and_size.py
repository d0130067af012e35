"""The load cache is keyed by what the files say, lives where platformdirs says, and is
bounded (cortes_rules/load_cache.py).

Where the files are and the working folder are not in the key: a rulebook
loaded from two folders, or from two working folders, is one entry, and the
paths the entry holds are those of the load that reads it. Past its size
cap (200 MB, ``CORTES_RULES_CACHE_MAX``) the least recently used entries
are deleted. The rulebook served is 2.1's: the game is what its files say.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cortes_rules import load_cache
from cortes_rules.loader import compile_rulebook

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(load_cache.ENV, str(folder))
    monkeypatch.delenv("CORTES_RULES_CACHE_MAX", raising=False)
    return folder


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.pickle"))


@pytest.mark.rule("2.1")
def test_the_shipped_rulebook_from_two_working_folders_is_one_entry(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        program, _ = compile_rulebook("cortes")
        assert len(_entries(cache)) == 1
        assert Path(program.rules["8.14"].span.path).name == "08-combat.rules"


@pytest.mark.rule("2.1")
def test_one_rulebook_in_two_folders_is_one_entry_naming_the_files_loaded(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry is keyed by the files' names and contents; the paths it holds
    (spans, modules: what diagnostics show) are put back as those of each load."""
    for name in ("a", "b"):
        (tmp_path / name / "race").mkdir(parents=True)
        shutil.copy(MINIMAL, tmp_path / name / "race" / "race.rules")
    monkeypatch.chdir(tmp_path / "a")
    first, _ = compile_rulebook("race")
    monkeypatch.chdir(tmp_path / "b")
    second, _ = compile_rulebook("race")
    third, _ = compile_rulebook(tmp_path / "a" / "race")
    assert len(_entries(cache)) == 1
    rule = next(iter(first.rules))
    assert first.rules[rule].span.path == "race/race.rules"        # relative to a/
    assert second.rules[rule].span.path == "race/race.rules"       # relative to b/
    assert third.rules[rule].span.path == str(tmp_path / "a" / "race" / "race.rules")
    assert [m.path for m in third.modules][-1] == str(tmp_path / "a" / "race" / "race.rules")
    (tmp_path / "b" / "race" / "race.rules").write_text(
        MINIMAL.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    compile_rulebook("race")
    assert len(_entries(cache)) == 2         # other contents, another entry


@pytest.mark.rule("2.1")
def test_the_folder_is_the_one_platformdirs_names(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv(load_cache.ENV, raising=False)
    named = []

    def user_cache_dir(appname: str, **kwargs: object) -> str:
        named.append(appname)
        return str(tmp_path / "per-user" / appname)

    monkeypatch.setattr(platformdirs, "user_cache_dir", user_cache_dir)
    assert load_cache.folder() == tmp_path / "per-user" / "cortes_rules"
    assert named == ["cortes_rules"]
    monkeypatch.setenv(load_cache.ENV, str(tmp_path / "chosen"))
    assert load_cache.folder() == tmp_path / "chosen"
    monkeypatch.setenv(load_cache.ENV, "off")
    assert load_cache.folder() is None


@pytest.mark.rule("2.1")
def test_the_size_cap_is_200_mb_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(load_cache.MAX_ENV, raising=False)
    assert load_cache.max_bytes() == 200_000_000
    for text, size in (("50MB", 50_000_000), ("1.5 GB", 1_500_000_000), ("64MiB", 64 << 20),
                       ("512k", 512_000), ("1000", 1000)):
        monkeypatch.setenv(load_cache.MAX_ENV, text)
        assert load_cache.max_bytes() == size, text
    monkeypatch.setenv(load_cache.MAX_ENV, "a lot")
    with pytest.warns(UserWarning, match="CORTES_RULES_CACHE_MAX='a lot' is not a size"):
        assert load_cache.max_bytes() == 200_000_000


def _age(path: Path, seconds_ago: int) -> None:
    when = path.stat().st_mtime - seconds_ago
    os.utime(path, (when, when))


@pytest.mark.rule("2.1")
def test_past_the_cap_the_least_recently_used_entries_are_deleted(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry here is about 10 kB; with a cap of 35 kB a fourth entry deletes
    the one used longest ago. Reading an entry counts as using it."""
    monkeypatch.setenv(load_cache.MAX_ENV, "35kB")
    for number, age in (("one", 300), ("two", 200), ("three", 100)):
        load_cache.store(number, bytes(10_000))
        _age(cache / f"{number}.pickle", age)
    assert load_cache.fetch("one") == bytes(10_000)      # "one" is now the latest used
    load_cache.store("four", bytes(10_000))
    assert [p.stem for p in _entries(cache)] == ["four", "one", "three"]
    assert load_cache.fetch("two") is None
    total = sum(p.stat().st_size for p in cache.iterdir())
    assert total <= 35_000
    monkeypatch.setenv(load_cache.MAX_ENV, "15kB")
    load_cache.store("five", bytes(10_000))
    assert [p.stem for p in _entries(cache)] == ["five"]


@pytest.mark.rule("2.1")
def test_the_grammar_tables_count_and_are_pruned_like_the_rest(cache: Path) -> None:
    cache.mkdir()
    old = cache / "grammar-0123.tables"
    old.write_bytes(bytes(5_000))
    _age(old, 1000)
    kept = cache / "notes.txt"               # not an entry: never deleted
    kept.write_bytes(bytes(50_000))
    load_cache.store("entry", bytes(5_000))
    assert load_cache.prune(cache, limit=6_000) == [old]
    assert kept.exists() and (cache / "entry.pickle").exists()
