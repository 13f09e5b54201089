"""How tokens pair: written bases by their base sets, placeholders by certainty.

Two rules, one per use (docs/molecular.md, "How bases pair"): two written IUPAC codes pair
when some base of one pairs some base of the other (`BASES_PAIR`: a degenerate oligo is a
mix, some of which pairs); a base pairs with a placeholder's position only when it pairs
every base the position admits (`PAIRS_PLACEHOLDER`: a barcode placeholder is a set of
molecules, each of which must pair). Symbolic segments pair with their own reverse
complement. The annealing search (`lablang.molecular.ops.core.anneal_sites`) walks these.
"""

from __future__ import annotations

from attrs import frozen

from lablang.molecular.sequence import (
    COMPLEMENT,
    IUPAC,
    PolyToken,
    SymbolToken,
    Token,
)
from lablang.records import Compared

# (a, b) -> whether IUPAC code `a` can pair with code `b`: some base `a` stands for is the
# complement of one `b` stands for. Written out once, since annealing asks it per position.
BASES_PAIR: dict[tuple[str, str], bool] = {
    (a, b): bool(IUPAC[a] & {COMPLEMENT[x] for x in IUPAC[b]}) for a in IUPAC for b in IUPAC
}


# (x, c) -> whether base code `x` pairs with a placeholder position that admits code `c`:
# every base `c` stands for has its complement among `x`'s. A placeholder stands for many
# molecules (every barcode of a set), so a base facing it must pair with each of them
# ("certainly pairs"), where two written bases need only share a pairing ("possibly").
PAIRS_PLACEHOLDER: dict[tuple[str, str], bool] = {
    (x, c): {COMPLEMENT[b] for b in IUPAC[c]} <= IUPAC[x] for x in IUPAC for c in IUPAC
}


def tokens_pair(a: Token, b: Token) -> bool:
    """Whether token `a` can be the reverse complement of token `b` at one position.

    >>> tokens_pair("A", "T"), tokens_pair("N", "G"), tokens_pair("A", "C")
    (True, True, False)
    """
    if isinstance(a, str) and isinstance(b, str):
        return BASES_PAIR[a, b]
    if isinstance(a, SymbolToken) and isinstance(b, SymbolToken):
        return a.name == b.name and a.rc != b.rc
    if isinstance(a, PolyToken) and isinstance(b, PolyToken):
        return COMPLEMENT[a.base] == b.base
    return False


def token_width(token: Token) -> int:
    """Bases a token stands for when counting paired length (unspecified runs count 12)."""
    if isinstance(token, str):
        return 1
    if isinstance(token, PolyToken):
        return 12
    return 1


@frozen(repr=False, eq=False)
class PlaceholderBase(Compared):
    """One position of a fixed-length placeholder, for rules that pair strands position by
    position (an oligo on an overhang, a splint's arms): `index` counts 5'->3' along its
    strand, `code` is what the position admits."""

    name: str
    rc: bool
    index: int
    width: int
    code: str


Position = Token | PlaceholderBase


def positions(tokens: tuple[Token, ...]) -> tuple[Position, ...]:
    """The tokens with each fixed-length placeholder spelt out as its positions.

    >>> [getattr(p, "code") for p in positions((SymbolToken("RT", False, "SN"),))]
    ['S', 'N']
    """
    out: list[Position] = []
    for tok in tokens:
        if isinstance(tok, SymbolToken) and tok.bases:
            width = len(tok.bases)
            out.extend(
                PlaceholderBase(tok.name, tok.rc, k, width, c) for k, c in enumerate(tok.bases)
            )
        else:
            out.append(tok)
    return tuple(out)


def positions_pair(a: Position, b: Position) -> bool:
    """`tokens_pair` for positions: a base with a placeholder's position by
    `PAIRS_PLACEHOLDER`, a placeholder's positions with its reverse complement's, mirrored."""
    if isinstance(a, PlaceholderBase):
        if isinstance(b, PlaceholderBase):
            return (
                a.name == b.name and a.rc != b.rc and a.width == b.width
                and a.index + b.index == a.width - 1
            )  # fmt: skip
        return isinstance(b, str) and PAIRS_PLACEHOLDER[b, a.code]
    if isinstance(b, PlaceholderBase):
        return isinstance(a, str) and PAIRS_PLACEHOLDER[a, b.code]
    return tokens_pair(a, b)


def pair_whole(a: tuple[Token, ...], b: tuple[Token, ...]) -> bool:
    """Whether `a` and `b` (both 5'->3') pair antiparallel over their whole lengths, token
    by token or, with placeholders spelt out, position by position.

    >>> pair_whole(("S", "A", "C"), ("G", "T", SymbolToken("RT", False, "SNN")))
    False
    >>> pair_whole(("N", "N", "S", "A", "C"), ("G", "T", SymbolToken("RT", False, "SNN")))
    True
    """
    if len(a) == len(b) and all(tokens_pair(x, y) for x, y in zip(a, reversed(b), strict=True)):
        return True
    pa, pb = positions(a), positions(b)
    return len(pa) == len(pb) and all(
        positions_pair(x, y) for x, y in zip(pa, reversed(pb), strict=True)
    )
