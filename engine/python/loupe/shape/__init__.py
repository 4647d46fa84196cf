"""Loupe's shape tracking (engine/shape) under tinygrad's module names: view.View and shapetracker.ShapeTracker."""
