"""Reference policies for `lablang evaluate` and `make_env` (baselines, not solutions)."""

from __future__ import annotations

from typing import Any

import numpy as np


def hold(observation: dict[str, Any], info: dict[str, Any]) -> np.ndarray:
    """Keep the gripper where it is with the fingers half open: the do-nothing baseline.

    >>> hold({"tcp": np.array([0.3, -0.25, 0.3])}, {}).tolist()
    [0.3, -0.25, 0.3, 0.0, 0.0, 0.02]
    """
    x, y, z = observation["tcp"]
    return np.array([x, y, z, 0.0, 0.0, 0.02])
