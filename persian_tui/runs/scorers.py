"""The outlier scorers' names (runs/outlier.py computes them), apart from numpy: the run spec
names them without importing the vector code."""

from __future__ import annotations

from typing import Literal, get_args

Scorer = Literal["centroid", "pairwise", "isolation"]
SCORERS: tuple[Scorer, ...] = get_args(Scorer)
