"""Running the ``cortes-rules`` command inside a test's process."""

from __future__ import annotations

import pytest

from cortes_rules.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command in this process: (status, stdout, stderr).

    Any exception but SystemExit fails the test that runs it.
    """
    try:
        status = main(list(args))
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    return status, out, err
