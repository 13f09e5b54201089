"""The interpreter's operations under one name (they live in `lablang.molecular.ops`).

Every operation is a plain function over `Molecule`s (or a `Pool`) and returns a
`Pool` or a molecule: each product is carried or discarded, with the reason. A failure
that makes the operation meaningless (a primer with no site, ligation ends that cannot
join) is raised as `OperationFailure` carrying a registered diagnostic code; the
workflow deriver turns it into a diagnostic at the step that asked for it. Each
function's docstring gives the rule it implements and why that rule is the chemistry
(`../notes/molecular_operations.md` is the long form).
"""

from __future__ import annotations

import lablang.molecular.ops  # noqa: F401  (registers every operation)
from lablang.molecular.ops.amplification import (
    linear_amplify as linear_amplify,
)
from lablang.molecular.ops.amplification import (
    pcr as pcr,
)
from lablang.molecular.ops.core import (
    ANNEAL_BUDGET as ANNEAL_BUDGET,
)
from lablang.molecular.ops.core import (
    MAX_ADAPTER_STRAND as MAX_ADAPTER_STRAND,
)
from lablang.molecular.ops.core import (
    MAX_PRODUCTS as MAX_PRODUCTS,
)
from lablang.molecular.ops.core import (
    MAX_SITES as MAX_SITES,
)
from lablang.molecular.ops.core import (
    MIN_ANNEAL as MIN_ANNEAL,
)
from lablang.molecular.ops.core import (
    MIN_STEM as MIN_STEM,
)
from lablang.molecular.ops.core import (
    MIN_SWITCH as MIN_SWITCH,
)
from lablang.molecular.ops.core import (
    PHOSPHATE_CODES as PHOSPHATE_CODES,
)
from lablang.molecular.ops.core import (
    ClosestMatch as ClosestMatch,
)
from lablang.molecular.ops.core import (
    Oligo as Oligo,
)
from lablang.molecular.ops.core import (
    OperationFailure as OperationFailure,
)
from lablang.molecular.ops.core import (
    Site as Site,
)
from lablang.molecular.ops.core import (
    anneal_sites as anneal_sites,
)
from lablang.molecular.ops.core import (
    best_template as best_template,
)
from lablang.molecular.ops.core import (
    closest_match as closest_match,
)
from lablang.molecular.ops.core import (
    describe_end as describe_end,
)
from lablang.molecular.ops.core import (
    explode as explode,
)
from lablang.molecular.ops.core import (
    has_phosphate as has_phosphate,
)
from lablang.molecular.ops.core import (
    is_payload_token as is_payload_token,
)
from lablang.molecular.ops.core import (
    need_duplex as need_duplex,
)
from lablang.molecular.ops.core import (
    no_site_failure as no_site_failure,
)
from lablang.molecular.ops.core import (
    oligo as oligo,
)
from lablang.molecular.ops.core import (
    payload_positions as payload_positions,
)
from lablang.molecular.ops.core import (
    strip_leading_modifications as strip_leading_modifications,
)
from lablang.molecular.ops.core import (
    template_strand as template_strand,
)
from lablang.molecular.ops.enzymatic import (
    ENZYMES as ENZYMES,
)
from lablang.molecular.ops.enzymatic import (
    a_tail as a_tail,
)
from lablang.molecular.ops.enzymatic import (
    bisulfite as bisulfite,
)
from lablang.molecular.ops.enzymatic import (
    denature as denature,
)
from lablang.molecular.ops.enzymatic import (
    digest as digest,
)
from lablang.molecular.ops.enzymatic import (
    end_repair as end_repair,
)
from lablang.molecular.ops.enzymatic import (
    fragment as fragment,
)
from lablang.molecular.ops.ligation import (
    adapter_duplex as adapter_duplex,
)
from lablang.molecular.ops.ligation import (
    barcode_round as barcode_round,
)
from lablang.molecular.ops.ligation import (
    ends_compatible as ends_compatible,
)
from lablang.molecular.ops.ligation import (
    ligate as ligate,
)
from lablang.molecular.ops.ligation import (
    split_pool as split_pool,
)
from lablang.molecular.ops.selection import (
    capture as capture,
)
from lablang.molecular.ops.selection import (
    cleanup as cleanup,
)
from lablang.molecular.ops.selection import (
    size_select as size_select,
)
from lablang.molecular.ops.synthesis import (
    extend as extend,
)
from lablang.molecular.ops.synthesis import (
    reverse_transcribe as reverse_transcribe,
)
from lablang.molecular.ops.synthesis import (
    second_strand as second_strand,
)
from lablang.molecular.ops.synthesis import (
    template_switch as template_switch,
)
from lablang.molecular.ops.tagmentation import (
    tagment as tagment,
)
