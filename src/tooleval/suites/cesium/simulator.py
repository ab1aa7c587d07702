"""Simulated Cesium tools: deterministic, argument-aware and stateful.

The simulator keeps a small scene (entities, layers, tilesets, viewpoints, camera) and answers
each schema-valid call with a result that satisfies the tool's output schema. ``geocode`` asks
the simulated geocoder (``gazetteer``: landmarks, districts and cities by any of their names,
honest failures for unknown places); creators echo the id given or return a fresh one
(``marker-1``, ``animation-1`` …); calls that name an unknown entity, layer or tileset get
``{"success": false, "error": ...}`` like a real viewer would. A failed call changes nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.suites.cesium.gazetteer import display_name, geocode

Result = dict[str, Any]

ENTITY_CREATORS = {
    "addMarker": "marker",
    "addLabel": "label",
    "addModel": "model",
    "addPolygon": "polygon",
    "addPolyline": "polyline",
    "addBillboard": "billboard",
    "addBox": "box",
    "addCorridor": "corridor",
    "addCylinder": "cylinder",
    "addEllipse": "ellipse",
    "addRectangle": "rectangle",
    "addWall": "wall",
    "createAnimation": "animation",
    "playTrajectory": "trajectory",
}
LAYER_CREATORS = {
    "addGeoJsonLayer": "geojson",
    "addGeoJsonPrimitive": "geojson-primitive",
    "load3dTiles": "3d-tiles",
    "load3dGaussianSplat": "gaussian-splat",
    "loadImageryService": "imagery",
    "loadCzml": "czml",
    "loadKml": "kml",
    "addHeatmap": "heatmap",
}
ENTITY_USERS = ("updateEntity", "removeEntity", "getEntityProperties", "trackEntity")
ANIMATION_USERS = ("removeAnimation", "updateAnimationPath")
LAYER_USERS = {
    "removeLayer": "id",
    "setLayerVisibility": "id",
    "getLayerSchema": "layerId",
    "updateLayerStyle": "layerId",
    "highlight": "layerId",
}


def failure(message: str) -> Result:
    return {"success": False, "error": message}


def haversine_m(a: list[float], b: list[float]) -> float:
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_000 * math.asin(math.sqrt(h))


@dataclass
class SimulatedScene:
    """Scene state plus one handler per tool family. ``execute`` never raises on valid input."""

    entities: dict[str, str] = field(default_factory=dict)
    layers: dict[str, str] = field(default_factory=dict)
    viewpoints: dict[str, dict[str, float]] = field(default_factory=dict)
    camera: dict[str, float] = field(
        default_factory=lambda: (
            dict.fromkeys(("longitude", "latitude", "heading", "roll"), 0.0)
            | {"height": 2e7, "pitch": -90.0}
        )
    )
    counters: dict[str, int] = field(default_factory=dict)

    def _fresh_id(self, prefix: str) -> str:
        """The next ``<prefix>-<n>`` not already taken (ids given by the model included)."""
        while True:
            self.counters[prefix] = self.counters.get(prefix, 0) + 1
            fresh = f"{prefix}-{self.counters[prefix]}"
            if fresh not in self.entities and fresh not in self.layers:
                return fresh

    def execute(self, name: str, args: Mapping[str, Any]) -> Result:
        if name in ENTITY_CREATORS:
            return self._create_entity(name, args)
        if name in LAYER_CREATORS:
            return self._create_layer(name, args)
        if name in ENTITY_USERS or name in ANIMATION_USERS:
            return self._use_entity(name, args)
        if name in LAYER_USERS:
            return self._use_layer(name, args)
        handler = self._handlers().get(name)
        if handler is not None:
            return handler(args)
        return {"success": True, "message": f"{name} applied"}

    def _handlers(self) -> dict[str, Callable[[Mapping[str, Any]], Result]]:
        return {
            "geocode": self._geocode,
            "flyTo": self._move_camera,
            "setView": self._move_camera,
            "lookAtTransform": self._move_camera,
            "getView": lambda _args: {"success": True, "data": dict(self.camera)},
            "saveViewpoint": self._save_viewpoint,
            "loadViewpoint": self._load_viewpoint,
            "listViewpoints": lambda _a: {"success": True, "data": sorted(self.viewpoints)},
            "listLayers": lambda _a: {"success": True, "data": sorted(self.layers)},
            "listAnimations": self._list_animations,
            "setEdgeDisplayMode": self._edge_mode,
            "measure": self._measure,
            "screenshot": self._screenshot,
            "clearAll": self._clear_all,
        }

    def _create_entity(self, name: str, args: Mapping[str, Any]) -> Result:
        kind = ENTITY_CREATORS[name]
        entity_id = str(args["id"]) if "id" in args else self._fresh_id(kind)
        if entity_id in self.entities:
            return failure(f"entity id {entity_id!r} already exists")
        self.entities[entity_id] = kind
        return {"success": True, "data": {"entityId": entity_id}}

    def _create_layer(self, name: str, args: Mapping[str, Any]) -> Result:
        kind = LAYER_CREATORS[name]
        layer_id = str(args["id"]) if "id" in args else self._fresh_id(kind)
        if layer_id in self.layers:
            return failure(f"layer id {layer_id!r} already exists")
        self.layers[layer_id] = kind
        data = {"id": layer_id, "type": kind, "visible": True}
        if "name" in args:
            data["name"] = str(args["name"])
        return {"success": True, "data": data}

    def _use_entity(self, name: str, args: Mapping[str, Any]) -> Result:
        entity_id = args.get("entityId")
        if name == "trackEntity" and entity_id is None:
            return {"success": True, "message": "camera tracking stopped"}
        if entity_id not in self.entities:
            return failure(f"unknown entity id {entity_id!r}")
        if name in ANIMATION_USERS and self.entities[entity_id] != "animation":
            return failure(f"entity {entity_id!r} is not an animation")
        if name in ("removeEntity", "removeAnimation"):
            del self.entities[entity_id]
        return {"success": True, "message": f"{name} applied to {entity_id}"}

    def _use_layer(self, name: str, args: Mapping[str, Any]) -> Result:
        key = LAYER_USERS[name]
        if name == "highlight" and key not in args:
            return {"success": True, "message": "highlight applied"}
        layer_id = args.get(key)
        if layer_id not in self.layers:
            return failure(f"unknown layer id {layer_id!r}")
        if name == "removeLayer":
            del self.layers[layer_id]
        return {"success": True, "message": f"{name} applied to {layer_id}"}

    def _geocode(self, args: Mapping[str, Any]) -> Result:
        found = geocode(str(args.get("address", "")), args.get("countryCode"))
        if found.place is None:
            return failure(found.reason)
        place = found.place
        return {
            "success": True,
            "longitude": place.longitude,
            "latitude": place.latitude,
            "displayName": display_name(place),
        }

    def _move_camera(self, args: Mapping[str, Any]) -> Result:
        for key in ("longitude", "latitude", "height", "heading", "pitch", "roll"):
            if key in args:
                self.camera[key] = float(args[key])
        return {"success": True, "message": "camera moved"}

    def _save_viewpoint(self, args: Mapping[str, Any]) -> Result:
        self.viewpoints[str(args["name"])] = dict(self.camera)
        return {"success": True, "message": f"viewpoint {args['name']!r} saved"}

    def _load_viewpoint(self, args: Mapping[str, Any]) -> Result:
        saved = self.viewpoints.get(str(args["name"]))
        if saved is None:
            return failure(f"unknown viewpoint {args['name']!r}")
        self.camera = dict(saved)
        return {"success": True, "message": f"viewpoint {args['name']!r} restored"}

    def _list_animations(self, _args: Mapping[str, Any]) -> Result:
        ids = sorted(k for k, v in self.entities.items() if v == "animation")
        return {"success": True, "data": ids}

    def _edge_mode(self, args: Mapping[str, Any]) -> Result:
        tileset = args.get("tilesetId")
        if tileset is not None and self.layers.get(tileset) != "3d-tiles":
            return failure(f"unknown tileset id {tileset!r}")
        return {"success": True, "message": f"edge display mode set to {args['mode']}"}

    def _measure(self, args: Mapping[str, Any]) -> Result:
        points = args["positions"]
        value = sum(haversine_m(a, b) for a, b in itertools.pairwise(points))
        if args["mode"] == "area":
            value = value * value / (4 * math.pi)  # a deterministic stand-in, not geodesy
        data: dict[str, Any] = {"mode": args["mode"], "value": round(value, 2)}
        data["unit"] = "meters" if args["mode"] == "distance" else "square meters"
        if "id" in args:
            data["id"] = args["id"]
        return {"success": True, "data": data}

    def _screenshot(self, _args: Mapping[str, Any]) -> Result:
        data = {"dataUrl": "data:image/png;base64,iVBORw0KGgo=", "width": 1280, "height": 720}
        return {"success": True, "data": data}

    def _clear_all(self, _args: Mapping[str, Any]) -> Result:
        self.entities.clear()
        self.layers.clear()
        return {"success": True, "message": "scene cleared"}
