"""The live API's envelopes: ``{data, meta}`` on success, ``{error, meta}`` on 4xx/5xx.

Every meta carries a deterministic ``correlation_id`` (derived from the request) plus
``replica: true`` and the snapshot date; those extra members are allowed by the contract's
open ``Meta`` schema and make replica answers recognisable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooleval.suites.infranode.api.facts import City, Source, snapshot, source_index
from tooleval.suites.infranode.api.seeded import canonical_json, sha256_hex

LICENSE_URLS = {
    "cc0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "cc_by_4_0": "https://creativecommons.org/licenses/by/4.0/",
    "dl_de_by_2_0": "https://www.govdata.de/dl-de/by-2-0",
    "dl_de_zero_2_0": "https://www.govdata.de/dl-de/zero-2-0",
    "geonutzv": "https://www.gesetze-im-internet.de/geonutzv/",
    "odbl": "https://opendatacommons.org/licenses/odbl/1-0/",
    "cc_by_sa_4_0": "https://creativecommons.org/licenses/by-sa/4.0/",
}


@dataclass(frozen=True)
class ApiResponse:
    """One answer of the API: HTTP status and JSON body."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class Request:
    """A parsed request: decoded path segments after the prefix, and the query."""

    path: str
    query: Mapping[str, str]

    def correlation_id(self) -> str:
        return sha256_hex(self.path, canonical_json(dict(sorted(self.query.items()))))[:32]


def base_meta(request: Request) -> dict[str, Any]:
    snap = snapshot()
    return {
        "correlation_id": request.correlation_id(),
        "replica": True,
        "snapshot_date": snap.contract_date,
    }


def status_meta(request: Request, source_status: str, **extra: Any) -> dict[str, Any]:
    meta = base_meta(request)
    meta["source_status"] = source_status
    if source_status == "ok":
        meta["cache_status"] = "HIT"
    meta.update(extra)
    return meta


def success(data: Any, meta: dict[str, Any]) -> ApiResponse:
    return ApiResponse(200, {"data": data, "meta": meta})


def empty(request: Request, source_status: str, **extra: Any) -> ApiResponse:
    """200 with ``data: null`` for the honest non-ok statuses."""
    return success(None, status_meta(request, source_status, **extra))


def error(request: Request, status: int, code: str, message: str, hint: str | None) -> ApiResponse:
    meta = base_meta(request)
    meta["generated_at"] = snapshot().retrieved_at
    return ApiResponse(
        status, {"error": {"code": code, "message": message, "hint": hint}, "meta": meta}
    )


def attribution(source: Source, license_id: str, suffix: str = "") -> dict[str, Any]:
    return {
        "text": source.attribution + suffix,
        "license_url": LICENSE_URLS.get(license_id),
        "modified": source.modified,
    }


def record(
    city_slug: str,
    source_id: str,
    payload: dict[str, Any],
    *,
    city: City | None,
    observed: bool,
    attribution_suffix: str = "",
    license_id: str | None = None,
) -> dict[str, Any]:
    """A CanonicalRecord with computed ``record_id`` and ``content_hash``."""
    source = source_index()[source_id]
    snap = snapshot()
    lic = license_id or source.license_id
    content_hash = sha256_hex(canonical_json(payload))
    geo = {"lat": city.geo[0], "lon": city.geo[1]} if city and city.geo else None
    return {
        "city_slug": city_slug,
        "geo": geo,
        "observed_at": snap.observed_at if observed else None,
        "retrieved_at": snap.retrieved_at,
        "source": source.source,
        "license_id": lic,
        "license_tier": source.license_tier,
        "schema_version": 1,
        "ags": city.ags if city else None,
        "wikidata_qid": city.qid if city else None,
        "attribution": attribution(source, lic, attribution_suffix),
        "payload": payload,
        "record_id": sha256_hex(source.source, city_slug, str(payload.get("kind"))),
        "content_hash": content_hash,
    }
