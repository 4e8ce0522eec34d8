"""``python -m rankselect``: the same as the ``rankselect`` console script."""
import sys

from .cli import main

sys.exit(main())
