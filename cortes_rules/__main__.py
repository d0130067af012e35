"""``python -m cortes_rules``: the same as the ``cortes-rules`` command."""

import sys

from .cli import main

sys.exit(main())
