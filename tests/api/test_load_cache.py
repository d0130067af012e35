"""The load cache (cortes_rules/load_cache.py) gives exactly what a fresh load gives.

A checked rulebook is stored under a key of the files read, the load's
arguments and the package's code, so a second load skips parsing and
checking. It must never change an answer: same program, same warnings, a
new key when any file changes, broken rulebooks reported every time, and a
bad entry or folder treated as a miss, never as an error. The rule served is
the rulebook's first (2.1: the game is what its files say).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import attrs
import lark
import pytest

import cortes_rules
from cortes_rules import load_cache, parse_tables
from cortes_rules.dsl import parse
from cortes_rules.loader import (_compile_rulebook, compile_rulebook, parse_files, resolve,
                                 rule_files)

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"
EXTRA = '''
rule 9.1 "A second clause" {
  summary "A value nobody reads, so the file differs."
  value spare: int = 3
}
'''


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(load_cache.ENV, str(folder))
    return folder


def fresh(name, **arguments):
    arguments = {"options": (), "replace": None, "readings": None, "scenario": None,
                 "every_reading": False,
                 **arguments}
    return _compile_rulebook(name, **arguments)


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name, arguments", [
    ("cortes", {"options": "veteran"}),
    ("cortes", {"readings": {"minimum_move": "any_points_left"}}),
    ("grands_strateges", {"scenario": "IXa"}),
])
def test_a_cached_load_is_the_fresh_load(cache, name, arguments):
    first = compile_rulebook(name, **arguments)
    assert len(list(cache.glob("*.pickle"))) == 1
    second = compile_rulebook(name, **arguments)
    assert second is not first and second == first == fresh(name, **arguments)
    book = cortes_rules.load(name, **arguments)
    assert book.program == first[0]


@attrs.frozen
class _Plain:
    a: int
    b: str = "b"


@attrs.frozen
class _KeywordOnly:
    a: int
    b: int = attrs.field(kw_only=True, default=0)


@attrs.frozen
class _Converted:
    a: tuple[int, ...] = attrs.field(converter=lambda x: tuple(x) * 2)


@attrs.frozen
class _Derived:
    a: int
    double: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "double", 2 * self.a)


@pytest.mark.rule("2.1")
def test_the_ir_is_stored_as_calls_of_its_classes_and_reads_back_equal():
    """IR nodes are written as a call of their class with their fields (read back a
    third faster than attrs' own state); classes whose ``__init__`` does not take
    every field as given are written attrs' way. Each reads back equal."""
    import pickle
    import pickletools

    values = [_Plain(1, "x"), _KeywordOnly(1, b=2), _Converted((1, 2)), _Derived(3),
              (_Plain(2), _Plain(2))]
    for value in values:
        read = pickle.loads(load_cache._dumps(value))
        assert read == value and type(read) is type(value)
    shared = _Plain(5)
    pair = pickle.loads(load_cache._dumps((shared, shared)))
    assert pair[0] is pair[1]                     # one object stays one object
    ops = {op.name for op, _, _ in pickletools.genops(load_cache._dumps(_Plain(1, "x")))}
    assert "REDUCE" in ops and "BUILD" not in ops
    ops = {op.name for op, _, _ in pickletools.genops(load_cache._dumps(_KeywordOnly(1)))}
    assert "BUILD" in ops


@pytest.mark.rule("2.1")
def test_each_argument_and_file_is_part_of_the_key(cache, tmp_path):
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8"), encoding="utf-8")
    before = cortes_rules.load(path)
    path.write_text(MINIMAL.read_text(encoding="utf-8") + EXTRA, encoding="utf-8")
    after = cortes_rules.load(path)
    assert "9.1" in after.program.rules and "9.1" not in before.program.rules
    compile_rulebook("cortes")
    compile_rulebook("cortes", options="veteran")
    assert len(list(cache.glob("*.pickle"))) == 4


@pytest.mark.rule("2.1")
def test_a_broken_rulebook_is_reported_every_time_and_never_stored(cache, tmp_path):
    path = tmp_path / "broken.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + "\nrule 9.2 {", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(cortes_rules.RulesSyntaxError):
            cortes_rules.load(path)
    assert not list(cache.glob("*.pickle")) if cache.exists() else True


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("damage", [b"", b"garbage", b"cortes_rules load cache 1\n\x80\x05junk"])
def test_a_damaged_entry_is_a_miss(cache, damage):
    expected = compile_rulebook("cortes")
    for entry in cache.glob("*.pickle"):
        entry.write_bytes(damage)
    assert compile_rulebook("cortes") == expected


@pytest.mark.rule("2.1")
def test_an_unusable_folder_only_means_no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(load_cache.ENV, str(blocker / "cache"))
    assert compile_rulebook("cortes") == fresh("cortes")


@pytest.mark.rule("2.1")
def test_off_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv(load_cache.ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compile_rulebook("cortes")
    assert load_cache.folder() is None and not any(tmp_path.iterdir())


@pytest.mark.rule("2.1")
def test_a_missing_rulebook_is_still_a_clear_error(cache, tmp_path):
    with pytest.raises(cortes_rules.CortesRulesError, match="no-such"):
        cortes_rules.load(tmp_path / "no-such")


@pytest.mark.rule("2.1")
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_among_the_files_is_refused_not_waited_for(cache, tmp_path):
    # Computing the key must not open a FIFO for reading (that would wait forever).
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "a.rules").write_text(MINIMAL.read_text(encoding="utf-8"), encoding="utf-8")
    os.mkfifo(folder / "z.rules")
    with pytest.raises(cortes_rules.CortesRulesError, match="FIFO"):
        cortes_rules.load(folder)
    assert not list(cache.glob("*.pickle"))


class _Touch:
    """A pickle that, if run, creates a file (a table must never be run as one)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("damage", ["junk", "foreign class"])
def test_damaged_grammar_tables_are_rebuilt_not_used(cache, tmp_path, monkeypatch, damage):
    """A damaged table, or one naming a class other than lark's (here a file's
    ``touch``), is passed over without being run, and the table is built again."""
    import pickle

    marker = tmp_path / "touched"
    bad = b"junk\n" if damage == "junk" else pickle.dumps(_Touch(marker))
    monkeypatch.setattr(load_cache, "SHIPPED_TABLES", tmp_path / "none shipped")
    parse._parser_for.cache_clear()
    expected = compile_rulebook(MINIMAL)
    tables = list(cache.glob("grammar-*.tables"))
    assert tables
    for table in tables:
        table.write_bytes(bad)
    for entry in cache.glob("*.pickle"):
        entry.unlink()
    parse._parser_for.cache_clear()
    assert compile_rulebook(MINIMAL) == expected
    assert not marker.exists()
    assert all(table.read_bytes() != bad for table in tables)
    parse._parser_for.cache_clear()


@pytest.mark.rule("2.1")
def test_tables_built_with_the_package_spare_a_first_load_the_lalr_build(
        cache, tmp_path, monkeypatch):
    """With an empty cache folder, the build's tables (parse_tables.build, run by
    setup.py) are read: lark builds no table, and the parse is the same."""
    expected = parse_files(rule_files(resolve("cortes")))
    shipped = tmp_path / "shipped"
    written = parse_tables.build(shipped)
    assert len(written) >= 2 and all(p.stat().st_size > 10_000 for p in written)
    monkeypatch.setattr(load_cache, "SHIPPED_TABLES", shipped)
    parse_tables._forget_parsers()
    built: list[object] = []
    real_init = lark.Lark.__init__

    def counting_init(self, *args, **kwargs):
        built.append(args[:1])
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(lark.Lark, "__init__", counting_init)
    for table in cache.glob("grammar-*.tables"):   # written by the first parse above
        table.unlink()
    assert parse_files(rule_files(resolve("cortes"))) == expected
    assert built == []
    assert not list(cache.glob("grammar-*.tables"))   # nothing to keep: read where it is
    parse_tables._forget_parsers()
    monkeypatch.setattr(load_cache, "SHIPPED_TABLES", tmp_path / "none shipped")
    assert parse_files(rule_files(resolve("cortes"))) == expected
    assert built and list(cache.glob("grammar-*.tables"))   # built, then kept
    parse_tables._forget_parsers()


_PARSE_EVERY_RULEBOOK = """
import pickle, sys
from pathlib import Path
import lark
from cortes_rules import load_cache
from cortes_rules.loader import parse_files, resolve, rule_files, shipped_rulebooks
load_cache.SHIPPED_TABLES = Path(sys.argv[2]) / "none shipped"
built = []
real_init = lark.Lark.__init__
def counting_init(self, *args, **kwargs):
    built.append(1)
    real_init(self, *args, **kwargs)
lark.Lark.__init__ = counting_init
modules = [parse_files(rule_files(resolve(name))) for name in shipped_rulebooks()]
from cortes_rules.dsl import parse
rules = parse._parser().rules
hashed = all(hash(r) == hash((r.origin, tuple(r.expansion))) for r in rules) and len(rules)
with open(sys.argv[1], "wb") as out:
    pickle.dump((len(built), hashed, modules), out)
"""


@pytest.mark.rule("2.1")
def test_tables_written_by_one_process_parse_alike_in_another(cache, tmp_path):
    """A table file is a pickled lark parser, and lark's grammar rules keep a hash
    of their names, which differs from process to process (string hashing is
    seeded). A process under another hash seed reads the tables another wrote,
    builds no parser, finds every rule hashed as its own hashing would, and
    parses every shipped rulebook to the same IR."""
    import pickle
    import subprocess
    import sys

    results = []
    for seed in ("1", "2"):
        out = tmp_path / f"parsed-{seed}.pickle"
        subprocess.run([sys.executable, "-c", _PARSE_EVERY_RULEBOOK, str(out), str(tmp_path)],
                       check=True, env={**os.environ, "PYTHONHASHSEED": seed,
                                        load_cache.ENV: str(cache)})
        results.append(pickle.loads(out.read_bytes()))
    (first_built, first_hashed, first), (then_built, then_hashed, then) = results
    assert first_built >= 2 and then_built == 0   # built and kept, then read
    assert first_hashed > 100 and then_hashed > 100   # each rule hashed as this process would
    assert then == first and len(first) >= 2


REQUIRE_FAILS = '''
rule 9.3 "An impossible requirement" {
  summary "Asks for what the rules never give."
  require 1 == 2 "one must equal two"
}
'''


@pytest.mark.rule("2.1")
def test_a_program_read_from_the_cache_is_not_checked_again(cache, monkeypatch):
    """The checks that need the compiled rulebook (``require`` clauses, the set-ups'
    starting positions) run before a program is kept, not each time it is read."""
    calls: list[int] = []
    real = cortes_rules.api._check_static

    def counting(program, machine):
        calls.append(1)
        real(program, machine)

    monkeypatch.setattr(cortes_rules.api, "_check_static", counting)
    first = cortes_rules.load(MINIMAL)
    assert calls == [1]
    second = cortes_rules.load(MINIMAL)
    assert calls == [1] and second.program == first.program
    assert (second.new_game(seed=1, setup="standard").legal_action_ids()
            == first.new_game(seed=1, setup="standard").legal_action_ids())
    monkeypatch.setenv(load_cache.ENV, "off")
    cortes_rules.load(MINIMAL)
    assert calls == [1, 1]


@pytest.mark.rule("2.1")
def test_a_program_failing_the_checks_that_need_it_compiled_is_refused_every_time(
        cache, tmp_path):
    """Such a program is never kept for ``load``; one kept by a plain
    ``compile_rulebook`` (which does not run those checks), or by one given
    another check, is not served to it."""
    path = tmp_path / "broken.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + REQUIRE_FAILS, encoding="utf-8")
    compile_rulebook(path)
    compile_rulebook(path, verify=lambda program: None)
    assert len(list(cache.glob("*.pickle"))) == 2
    for _ in range(2):
        with pytest.raises(cortes_rules.RulesCheckError, match="one must equal two"):
            cortes_rules.load(path)
    assert len(list(cache.glob("*.pickle"))) == 2


@pytest.mark.rule("2.1")
def test_the_installed_package_ships_the_tables_of_its_grammar():
    """setup.py's build_py wrote the tables (the README installs the package
    before testing); each loads as the parser of the grammar it is named for."""
    shipped = sorted(load_cache.SHIPPED_TABLES.glob("grammar-*.tables"))
    assert len(shipped) >= 3, "pip install -e . builds cortes_rules/_tables"
    with tempfile.TemporaryDirectory() as scratch:
        rebuilt = {p.name for p in parse_tables.build(Path(scratch))}
    assert rebuilt <= {p.name for p in shipped}


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("collector_on", [True, False])
def test_a_load_leaves_the_garbage_collector_as_it_found_it(cache, collector_on):
    """A load holds the cyclic collector off while it builds the rulebook (a quarter of
    a cached load was collections), and gives it back as it was, also when it fails."""
    import gc

    was = gc.isenabled()
    try:
        (gc.enable if collector_on else gc.disable)()
        states: list[bool] = []
        real = cortes_rules.api.Machine

        def spy(*args, **kwargs):
            states.append(gc.isenabled())
            return real(*args, **kwargs)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(cortes_rules.api, "Machine", spy)
            book = cortes_rules.load(MINIMAL)
        assert states == [False] and book.program.rules
        assert gc.isenabled() is collector_on
        with pytest.raises(cortes_rules.CortesRulesError):
            cortes_rules.load(MINIMAL.parent / "no_such_rulebook.rules")
        assert gc.isenabled() is collector_on
    finally:
        (gc.enable if was else gc.disable)()
