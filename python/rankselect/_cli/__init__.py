"""Subcommands of the ``rankselect`` CLI, one module each (see ``rankselect.cli``)."""
