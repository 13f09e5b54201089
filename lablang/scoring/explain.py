"""The `--explain` text: why each matched pair scored what it did, and what is unmatched."""

from __future__ import annotations

from lablang.scoring.score import ScoreResult

_ORDER = ("t1", "t2", "t3")


def render_metrics(result: ScoreResult) -> str:
    """Metrics one per line, benchmark names, six decimals."""
    width = max((len(k) for k in result.metrics), default=0)
    lines = [f"protocol {result.protocol_id or '?'}  tasks {', '.join(result.tasks) or 'none'}"]
    lines += [f"  {name:<{width}}  {value:.6f}" for name, value in result.metrics.items()]
    return "\n".join(lines)


def render_explanation(result: ScoreResult) -> str:
    """Matched pairs with their components, then unmatched truth and prediction entities."""
    lines: list[str] = []
    for task in _ORDER:
        pairs = [m for m in result.matches if m.task == task]
        missing = [u for u in result.unmatched if u.task == task]
        if not pairs and not missing:
            continue
        lines.append(f"{task.upper()}")
        for pair in pairs:
            where = f"[{pair.workflow}] " if pair.workflow else ""
            score = "neutral" if pair.score is None else f"{pair.score:.4f}"
            parts = ", ".join(
                f"{k} {'off' if v is None else f'{v:.3f}'}" for k, v in pair.components.items()
            )
            lines.append(f"  {pair.kind} {where}{pair.truth_id} <- {pair.prediction_id}: {score}")
            if parts:
                lines.append(f"      {parts}")
        for side, label in (("truth", "missed truth"), ("prediction", "extra prediction")):
            ids = [u for u in missing if u.side == side]
            for item in ids:
                where = f"[{item.workflow}] " if item.workflow else ""
                lines.append(f"  {label} {item.kind} {where}{item.id}")
    return "\n".join(lines)
