"""pytest loads this file first; its folder, the repository root, goes on ``sys.path`` (pytest's
default ``prepend`` import mode), so tests import their helpers as ``tests.xxx`` whether pytest
runs as ``pytest`` or ``python -m pytest``.  Importing ``agents`` / ``train`` by their folder
names from here gives the installed modules themselves (see ``zavandor_env/_aliases.py``)."""
