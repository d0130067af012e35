"""The reference browser front end: ``cortes-rules serve`` (docs/frontend.md).

``create_app()`` builds the Starlette application (a JSON API and the static
page); ``run()`` serves it with uvicorn. Starlette and uvicorn are
dependencies of the package. The module uses only the public API of the
package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "run"]


def create_app(**settings: Any) -> Any:
    """The Starlette application (see ``cortes_rules.serve.app.create_app``)."""
    from .app import create_app as build

    return build(**settings)


def run(host: str = "127.0.0.1", port: int = 8000, **settings: Any) -> None:
    """Serve the front end with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(**settings), host=host, port=port, log_level="warning")
