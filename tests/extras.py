"""Optional libraries a test needs: skip in one line without them, fail in CI.

The default test extra (``pip install -e '.[test]'``) leaves out the heavy
optional libraries (Ray, OpenSpiel, PettingZoo and Gymnasium, numpy,
Playwright); ``.[test-all]`` brings them. A test module that needs one calls
``need(module, extra)``: without the library the module is skipped with one
line naming what to install. With ``CORTES_RULES_REQUIRE_EXTRAS`` set (CI
sets it after installing ``.[test-all]``) a missing library is an error
instead, so that CI never skips these tests unseen.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRE = "CORTES_RULES_REQUIRE_EXTRAS"


def need(module: str, extra: str = "test-all") -> ModuleType:
    """``module`` imported, or the calling test skipped (failed under ``REQUIRE``)."""
    __tracebackhide__ = True   # the skip is reported at the caller's line
    try:
        return importlib.import_module(module)
    except ImportError as error:
        reason = f"{module} is not installed (pip install -e '.[{extra}]'): {error}"
        if os.environ.get(REQUIRE, "") not in ("", "0"):
            pytest.fail(f"{REQUIRE} is set but {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)
