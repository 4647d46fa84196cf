"""tinygrad.shape.shapetracker: the engine's ShapeTracker, a stack of Views."""
from __future__ import annotations

from loupe._loupe import ShapeTracker, View

__all__ = ["ShapeTracker", "View"]
