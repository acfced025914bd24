"""The one CSV writer: every CSV file we write goes through :func:`csv_text`.

A cell of ours may hold a stranger's text (an agent label from a tournament file, a journal,
a run folder).  A spreadsheet reads a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a
formula (``=HYPERLINK(...)``, ``@SUM(...)``, and through DDE, commands), and so does one that
begins with a tab or a carriage return followed by one.  :func:`spreadsheet_safe` neutralises
such a text cell by putting an apostrophe in front of it, as OWASP's guidance on CSV
injection advises; the apostrophe shows in the cell, so the label stays readable and is
visibly not a formula.  Numbers are written as numbers: ``-3`` (a VP margin) stays ``-3``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any, Final

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet evaluates: a text beginning with one of
    :data:`FORMULA_STARTS` gets a leading apostrophe; anything else is returned as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV file's text (to be written at once, e.g. by ``write_atomic``), every text cell
    made :func:`spreadsheet_safe`."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow([spreadsheet_safe(cell) for cell in header])
    writer.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return text.getvalue()
