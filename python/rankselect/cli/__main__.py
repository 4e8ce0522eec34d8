"""``python -m rankselect.cli``: the same as the ``rankselect`` console script."""
import sys

from .app import main

sys.exit(main())
