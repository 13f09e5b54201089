"""`lablang explain ENZYME` and `lablang explain enzymes`: a restriction enzyme's site,
cuts and ends, and the list of every enzyme `digest` knows, read from the REBASE table
(`lablang.molecular.ops.digestion.ENZYMES`).

>>> print(describe_enzyme("sbfi").splitlines()[0])
`SbfI`: site CCTGCA^GG, a 4-base 3' overhang (TGCA)
"""

from __future__ import annotations

import textwrap

__all__ = ["describe_enzyme"]


def describe_enzyme(name: str) -> str | None:
    """An enzyme's site (cut marked `^`, or `(top/bottom)` past the site's end for one that
    cuts outside it), its ends and its methylation dependence; `enzymes`: every name.
    None when `name` is neither (the match ignores case)."""
    from lablang.molecular.ops.digestion import ENZYMES
    from lablang.molecular.ops.rebase import REBASE_RELEASE

    if name.lower() == "enzymes":
        names = ", ".join(sorted(ENZYMES, key=str.lower))
        head = (
            f"The {len(ENZYMES)} restriction enzymes `digest(x, enzyme: NAME)` knows, REBASE's "
            f'commercially available set ({REBASE_RELEASE}); `digest(x, site: "CCTGCA^GG")` '
            "takes any other site. `lablang explain NAME` gives one's site and ends.\n\n"
        )
        return head + textwrap.fill(names, 88) + "\n"
    found = next((k for k in ENZYMES if k.lower() == name.lower()), None)
    if found is None:
        return None
    enzyme = ENZYMES[found]
    site, top, bottom = enzyme.site, enzyme.top, enzyme.bottom
    if 0 <= top <= len(site):
        written = site[:top] + "^" + site[top:]
    else:
        written = f"{site}({top - len(site)}/{bottom - len(site)})"
    width = abs(bottom - top)
    if width == 0:
        ends = "blunt ends"
    else:
        kind = "5'" if top < bottom else "3'"
        lo, hi = sorted((top, bottom))
        bases = site[lo:hi] if lo >= 0 and hi <= len(site) else ""
        ends = f"a {width}-base {kind} overhang" + (f" ({bases})" if bases else "")
    lines = [f"`{found}`: site {written}, {ends}"]
    if enzyme.methylation == "requires":
        lines.append("cuts only Dam-methylated GATC (`digest(x, enzyme: ..., methylated: true)`)")
    elif enzyme.methylation == "blocked":
        lines.append("Dam methylation of GATC blocks it (`methylated: true` leaves the site uncut)")
    return "\n".join(lines) + "\n"
