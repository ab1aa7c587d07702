"""The offline InfraNode API replica: same contract, coverage and statuses, seeded values."""

from __future__ import annotations

from tooleval.suites.infranode.api.boards import board_evas, off_board_stations, station_catalog
from tooleval.suites.infranode.api.envelope import ApiResponse
from tooleval.suites.infranode.api.handler import InfraNodeReplica
from tooleval.suites.infranode.api.slugs import nearest_slug, resolve_slug

__all__ = [
    "ApiResponse",
    "InfraNodeReplica",
    "board_evas",
    "nearest_slug",
    "off_board_stations",
    "resolve_slug",
    "station_catalog",
]
