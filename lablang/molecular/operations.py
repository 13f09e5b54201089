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
from lablang.molecular.molecule import Pool, Product  # noqa: F401  (operations return them)
from lablang.molecular.ops.amplification import *  # noqa: F403
from lablang.molecular.ops.amplification import (
    linear_amplify as linear_amplify,
)
from lablang.molecular.ops.amplification import (
    pcr as pcr,
)
from lablang.molecular.ops.barcoding import *  # noqa: F403
from lablang.molecular.ops.barcoding import (
    barcode_round as barcode_round,
)
from lablang.molecular.ops.barcoding import (
    split_pool as split_pool,
)
from lablang.molecular.ops.core import *  # noqa: F403
from lablang.molecular.ops.enzymatic import *  # noqa: F403
from lablang.molecular.ops.joining import *  # noqa: F403
from lablang.molecular.ops.kinase import *  # noqa: F403
from lablang.molecular.ops.ligation import *  # noqa: F403
from lablang.molecular.ops.nucleases import *  # noqa: F403
from lablang.molecular.ops.selection import *  # noqa: F403
from lablang.molecular.ops.synthesis import *  # noqa: F403
from lablang.molecular.ops.tagmentation import *  # noqa: F403
from lablang.molecular.ops.tailing import *  # noqa: F403
from lablang.molecular.ops.transcription import *  # noqa: F403
