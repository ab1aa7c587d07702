"""What a successful call changes in the scene: its target and how it changes it.

The headline correctness check uses this to tell whether a call that did the asked thing is
still in effect at the end of the run, or was undone by a later call: a second ``setBasemap``,
``stopOrbit`` after ``startOrbit``, ``highlight {"clear": true}``, ``removeEntity`` on the
marker, ``clearAll``. Targets are strings: ``entity:<id>``, ``layer:<id>``, ``highlight:<layer
id or *>``, ``edges:<tileset id or *>``, ``camera``, ``basemap``, ``scene`` … Modes:

- ``none``: read-only calls (``geocode``, ``screenshot``, ``get*``/``list*``) and failed calls;
- ``set``: the target's state becomes this call's arguments (a later ``set`` replaces it);
- ``merge``: only the arguments given change (``setSceneOptions``, ``updateEntity`` …);
- ``remove``: the target is gone (``removeEntity``, ``stopOrbit``, ``highlight`` clear); a
  target ending in ``*`` removes every target with that prefix;
- ``clear``: ``clearAll`` removes every entity, layer, highlight and measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.suites.cesium.catalogue import load_catalogue
from tooleval.suites.cesium.simulator import ENTITY_CREATORS, LAYER_CREATORS

CAMERA_TOOLS = ("flyTo", "setView", "lookAtTransform", "zoomToExtent", "loadViewpoint")
MERGED = {
    "setSceneOptions": "scene",
    "setPostProcess": "post-process",
    "setGlobeLighting": "lighting",
    "setCameraOptions": "camera-options",
    "controlClock": "clock",
}
SETTINGS = {
    "setBasemap": "basemap",
    "startOrbit": "orbit",
    "loadTerrain": "terrain",
    "controlAnimation": "playback",
}
CLEARED_BY_CLEAR_ALL = ("entity:", "layer:", "highlight:", "measure:", "batch:")


@dataclass(frozen=True)
class Effect:
    target: str | None
    mode: str  # none | set | merge | remove | clear
    values: Mapping[str, Any] = field(default_factory=dict)

    def removes(self, target: str) -> bool:
        """Whether this effect makes ``target`` disappear."""
        if self.mode == "clear":
            return target.startswith(CLEARED_BY_CLEAR_ALL)
        if self.mode != "remove" or self.target is None:
            return False
        if self.target.endswith("*"):
            return target.startswith(self.target[:-1])
        return target == self.target


NONE = Effect(None, "none")


def _flatten_update(args: Mapping[str, Any]) -> dict[str, Any]:
    """``updateEntity``'s ``position`` object as the creators' longitude/latitude/height."""
    values = {k: v for k, v in args.items() if k not in ("entityId", "position")}
    position = args.get("position")
    if isinstance(position, Mapping):
        values.update(position)
    return values


def _entity_effect(name: str, args: Mapping[str, Any]) -> Effect | None:
    entity = f"entity:{args.get('entityId')}"
    if name in ("removeEntity", "removeAnimation"):
        return Effect(entity, "remove")
    if name in ("updateEntity", "updateAnimationPath"):
        return Effect(entity, "merge", _flatten_update(args))
    if name in ("removeLayer", "setLayerVisibility", "updateLayerStyle"):
        layer = f"layer:{args.get('id', args.get('layerId'))}"
        if name == "removeLayer":
            return Effect(layer, "remove")
        return Effect(layer, "merge", {k: v for k, v in args.items() if k not in ("id", "layerId")})
    return None


def _created(name: str, args: Mapping[str, Any], data: Mapping[str, Any], index: int) -> Effect:
    if name in ENTITY_CREATORS:
        return Effect(f"entity:{data.get('entityId')}", "set", args)
    if name in LAYER_CREATORS:
        return Effect(f"layer:{data.get('id')}", "set", args)
    kind = "measure" if name == "measure" else "batch"
    return Effect(f"{kind}:{args.get('id') or f'#{index}'}", "set", args)


def _setting_effect(name: str, args: Mapping[str, Any]) -> Effect:
    if name == "highlight":
        target = f"highlight:{args.get('layerId', '*')}"
        return Effect(target, "remove" if args.get("clear") is True else "set", args)
    if name == "setEdgeDisplayMode":
        return Effect(f"edges:{args.get('tilesetId', '*')}", "set", args)
    if name in CAMERA_TOOLS or name == "trackEntity":
        return Effect("camera", "set", args)
    if name == "stopOrbit":
        return Effect("orbit", "remove")
    if name == "saveViewpoint":
        return Effect(f"viewpoint:{args.get('name')}", "set", args)
    if name in MERGED:
        return Effect(MERGED[name], "merge", args)
    return Effect(SETTINGS.get(name, f"tool:{name}"), "set", args)


def effect_of(name: str, args: Mapping[str, Any], result: Mapping[str, Any], index: int) -> Effect:
    """The effect of call number ``index`` (unique per run) given its result."""
    if result.get("success") is not True:
        return NONE
    if name == "clearAll":
        return Effect(None, "clear")
    tool = load_catalogue().by_name().get(name)
    if tool is None or tool.annotations.get("readOnlyHint"):
        return NONE
    if name in ENTITY_CREATORS or name in LAYER_CREATORS or name in ("measure", "batchAddEntities"):
        data = result.get("data")
        return _created(name, args, data if isinstance(data, Mapping) else {}, index)
    return _entity_effect(name, args) or _setting_effect(name, args)
