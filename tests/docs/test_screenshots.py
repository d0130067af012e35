"""Browser screenshots of the built site: the rule 8.14 entry and the Cortés map.

Headless Chromium (``apt-get install chromium``) opens the pages of a built
site (``$CORTES_RULES_SITE``, or a site this test builds with MkDocs) and
captures a 1280 x 2000 window: the rule reference scrolled to its 8.14 entry,
the Cortés map page from its top and scrolled to the map at full size. A
screenshot is readable for the test when it is not blank (many colours, a
fair share of the window inked but not all of it) and the anchor's element
is in the upper half of the window; the pages' HTML holds the highlighted
clause of 8.14 and the picture with every piece on the map. The screenshots
are written to ``$CORTES_RULES_SCREENSHOTS`` when it is set (CI keeps them
for a person to look at). Skipped when no Chromium is found, unless
``$CORTES_RULES_REQUIRE_BROWSER`` is set (as in CI).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshots  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MIN_COLOURS = 40
INKED = (0.03, 0.97)


@pytest.fixture(scope="module")
def browser() -> str:
    found = screenshots.find_browser()
    if found is None:
        reason = "no Chromium binary (apt-get install chromium, or set CHROMIUM)"
        if os.environ.get("CORTES_RULES_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("CORTES_RULES_SITE")
    if given:
        path = Path(given)
        assert (path / "index.html").is_file(), f"{given} is no built site"
        return path
    if importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip("mkdocstrings is not installed (pip install -e '.[docs]'): the site's "
                    "API reference cannot be built")
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("MkDocs is not installed (pip install -e '.[docs]'), and "
                    "CORTES_RULES_SITE names no built site")
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        get_lexer_by_name("cortes-rules")
    except ClassNotFound:
        pytest.skip("Pygments does not know the rules language: the package is not installed")
    path = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                    "--site-dir", str(path)], cwd=ROOT, check=True,
                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return path


@pytest.fixture(scope="module")
def shots(site: Path, browser: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = Path(os.environ.get("CORTES_RULES_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    return screenshots.take(site, out, browser)


def _readable(path: Path) -> None:
    image = screenshots.read_png(path.read_bytes())
    assert (image.width, image.height) == (screenshots.WIDTH, screenshots.HEIGHT)
    colours, inked = screenshots.colour_profile(image)
    assert colours >= MIN_COLOURS, f"{path}: {colours} colours, a blank page?"
    assert INKED[0] <= inked <= INKED[1], f"{path}: {inked:.0%} of the window inked"


@pytest.mark.rule("8.14")
def test_the_8_14_entry_is_readable_in_the_browser(shots: dict[str, Path], site: Path) -> None:
    _readable(shots["rule-8-14"])
    html = (site / "reference" / "cortes" / "index.html").read_text(encoding="utf-8")
    start = html.index('id="rule-8-14"')
    entry = html[start:html.index('id="rule-8-15"')]
    assert "Major fortress" in entry
    # The clause, highlighted by the rules language's lexer.
    assert '<span class="k">rule</span>' in entry
    assert '<span class="nl">8.14</span>' in entry
    assert '<span class="k">when</span>' in entry
    assert 'class="err"' not in entry


@pytest.mark.rule("2.2")
def test_the_cortes_map_page_is_readable_in_the_browser(shots: dict[str, Path],
                                                        site: Path) -> None:
    _readable(shots["map-cortes"])
    _readable(shots["map-cortes-full-size"])
    html = (site / "map" / "cortes" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'class="admonition warning"', html)
    assert "not the printed map" in html
    svg = html[html.index('<div class="rulebook-map">'):]
    svg = svg[:svg.index("</svg>")]
    drawn = re.findall(r'<g class="counter" data-piece="([^"]+)" data-place="([^"]+)"', svg)
    spec = importlib.util.spec_from_file_location(
        "map_and_counters", ROOT / "mkdocs_hooks" / "map_and_counters.py")
    assert spec is not None and spec.loader is not None
    hook = sys.modules.setdefault("map_and_counters", importlib.util.module_from_spec(spec))
    if not hasattr(hook, "starting_position"):
        spec.loader.exec_module(hook)
    expected = hook.starting_position("cortes").state.positions()
    assert dict(drawn) == expected and len(drawn) == len(expected) > 100
    assert (site / "map" / "cortes.svg").read_text(encoding="utf-8").strip() in html
