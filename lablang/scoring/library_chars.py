"""The score characters of LibStructBench's Task 1 grader: the placeholder roles it
expands (`[CB:16]` becomes 16 `#`), the rest being scored as literal text.

Its one copy. A module of its own with no imports, so that `lablang check` (which warns
about roles the grader does not expand, W0406) reads it without loading the grader.
"""

LIBRARY_SCORE_CHARS = {
    "CELL_BARCODE": "#", "BARCODE": "#", "CB": "#", "GEM_BARCODE": "#", "BEAD_BARCODE": "#",
    "UMI": "~",
    "SAMPLE_INDEX": "@", "INDEX": "@", "I5": "@", "I5_INDEX": "@", "I7": "@", "I7_INDEX": "@",
    "LIGATION": "&", "LIGATION_BARCODE": "&",
    "RT": "=", "RT_BARCODE": "=",
    "TN5": "%", "TN5_INDEX": "%", "TN5_BARCODE": "%",
    "FEATURE": "$", "FB": "$", "FEATURE_BARCODE": "$", "CAPTURE": "$", "CAPTURE_BARCODE": "$",
    "ANTIBODY": "$", "ANTIBODY_BARCODE": "$",
    "RANDOM": "?", "VARIABLE": "?", "SPACER": "?", "LINKER": "?", "PB": "?",
    "PHASE_BLOCK": "?", "DEGENERATE": "?",
}  # fmt: skip
