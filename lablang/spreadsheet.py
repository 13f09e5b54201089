"""CSV text that a spreadsheet opens as data: every CSV file lablang writes goes through here.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to
Excel, LibreOffice and Google Sheets (`=cmd|' /C calc'!A1` runs a program), so such a
cell is written with a leading `'` (OWASP's rule for CSV injection); a plain number,
`-0.25` included, is left as it is so that the column stays numeric.

>>> csv_text([("attempt", "reward"), ("=cmd|calc!A1", "-0.25")])
"attempt,reward\\n'=cmd|calc!A1,-0.25\\n"
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

__all__ = ["csv_text", "spreadsheet_cell"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\Z")


def spreadsheet_cell(value: object) -> object:
    """`value` as a cell no spreadsheet evaluates (numbers are kept as numbers)."""
    if isinstance(value, (bool, int, float)):
        return value
    text = str(value)
    if text.startswith(_FORMULA_START) and not _NUMBER.match(text):
        return "'" + text
    return text


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    """The rows (the header first) as CSV text, `\\n` line ends, every cell made safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    # with `\n` line ends the csv module leaves a cell holding a lone CR unquoted, which
    # readers take for the end of the row: such a row has every cell quoted
    quoted = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        cells = [spreadsheet_cell(cell) for cell in row]
        has_cr = any(isinstance(cell, str) and "\r" in cell for cell in cells)
        (quoted if has_cr else writer).writerow(cells)
    return buffer.getvalue()
