"""The Cesium suite: 61 browser map tools, two routers and 15 multi-turn scenarios.

Layer 1 (routing, no network) asks whether the right tools reach the model; layer 2 (live)
asks whether the model uses them well. See README.md in this package.
"""

from __future__ import annotations

from tooleval.suites.cesium.catalogue import Catalogue, CesiumTool, load_catalogue, load_tools

__all__ = ["Catalogue", "CesiumTool", "load_catalogue", "load_tools"]
