"""The names of `lablang export --to` targets and where each exporter lives.

Kept apart from `lablang.export` so the command line can list and complete the targets
without importing the exporters (the backends).
"""

from __future__ import annotations

# target -> "module:function(result) -> (text | None, Report)". JSON is the core's;
# the others belong to backends and are imported only when asked for.
EXPORTERS: dict[str, str] = {
    "json": "lablang.export:_export_json",
    "libstruct-t1": "lablang.molecular.interchange:export_t1_text",
    "libstruct-t2": "lablang.molecular.interchange:export_t2_text",
    "libstruct-t3": "lablang.molecular.interchange:export_t3_text",
    # seqspec's PyPI release (0.3.1) loads only the 0.3 format: that is the default; the
    # 0.4.0 format of seqspec's repository is asked for by name
    "seqspec": "lablang.molecular.interchange:export_seqspec_0_3_text",
    "seqspec-0.3": "lablang.molecular.interchange:export_seqspec_0_3_text",
    "seqspec-0.4": "lablang.molecular.interchange:export_seqspec_text",
}

# the targets that take `protocol_id=` (`lablang export --protocol-id`): LibStructBench
# documents name the benchmark's protocol they answer
PROTOCOL_ID_TARGETS = frozenset({"libstruct-t1", "libstruct-t2", "libstruct-t3"})
