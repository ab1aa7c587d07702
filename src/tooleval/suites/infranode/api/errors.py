"""The error envelopes (German messages and hints, as the live API words them)."""

from __future__ import annotations

from tooleval.suites.infranode.api.envelope import ApiResponse, Request, error
from tooleval.suites.infranode.api.facts import catalog_index, poi_types
from tooleval.suites.infranode.api.slugs import nearest_slug

CITY_LIST_HINT = "Die kanonischen Slugs liefert GET /api/v1/cities."


def unknown_path(request: Request) -> ApiResponse:
    return error(
        request,
        404,
        "not_found",
        f"Unbekannter Pfad '{request.path}'.",
        "Die verfügbaren Endpunkte beschreibt GET /api/v1/openapi.yaml.",
    )


def unknown_city(request: Request, name: str) -> ApiResponse:
    if name in catalog_index() or name == "overview":
        hint = (
            f"'{name}' ist eine Datenart, keine Stadt. Nutze /api/v1/cities/<slug>/{name}, "
            f"z.B. /api/v1/cities/berlin/{name}."
        )
    else:
        guess = nearest_slug(name)
        hint = f"Meintest du '{guess}'? {CITY_LIST_HINT}" if guess else CITY_LIST_HINT
    return error(request, 404, "not_found", f"Unbekannte Stadt '{name}'.", hint)


def invalid_request(request: Request, message: str, hint: str | None) -> ApiResponse:
    return error(request, 400, "invalid_request", message, hint)


def unprocessable(request: Request, message: str, hint: str | None) -> ApiResponse:
    return error(request, 422, "unprocessable", message, hint)


def bad_poi_type(request: Request, poi_type: str | None) -> ApiResponse:
    allowed = ", ".join(poi_types())
    message = f"Unbekannter POI-Typ '{poi_type}'." if poi_type else "Der Parameter type fehlt."
    return unprocessable(request, message, f"Erlaubte Typen: {allowed}.")


def bad_eva(request: Request, eva: str) -> ApiResponse:
    return unprocessable(
        request,
        f"Ungueltige EVA-Nummer '{eva}'.",
        "Eine EVA besteht aus 6 bis 8 Ziffern, z.B. 8011160 (Berlin Hbf); "
        "EVAs liefert GET /api/v1/cities/<slug>/stations.",
    )


def method_not_allowed(request: Request, method: str) -> ApiResponse:
    return error(
        request,
        405,
        "method_not_allowed",
        f"Methode {method} ist nicht erlaubt.",
        "Die API ist read-only: nutze GET oder HEAD.",
    )
