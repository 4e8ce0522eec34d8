"""``python -m rankselect``: the command line (see ``rankselect --help``)."""
import sys

from .cli import main

sys.exit(main())
