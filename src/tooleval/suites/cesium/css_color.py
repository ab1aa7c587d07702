"""CSS colours in every form a model may write them, reduced to one comparable value.

``parse_css_color`` understands the 148 CSS named colours (``css_colors.json``), ``transparent``,
hex (``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``), ``rgb()``/``rgba()`` and
``hsl()``/``hsla()`` in both the comma and the space syntax (``rgb(255 0 0 / 50%)``), with
numbers or percentages and hue units ``deg``, ``rad``, ``grad`` and ``turn``. Anything else is
``None``. Two colours are the same when their red, green and blue channels are equal after
rounding to 0–255 and neither is fully transparent: the alpha channel is about opacity, not
about which colour was asked for.
"""

from __future__ import annotations

import math
import re
from functools import cache

from tooleval.suites.cesium.catalogue import read_data

RGBA = tuple[int, int, int, float]

_FUNCTION = re.compile(r"^(rgba?|hsla?)\(\s*(.*?)\s*\)$")
_HEX = re.compile(r"^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$")
_NUMBER = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(%|deg|rad|grad|turn)?$")
_HUE_UNITS = {None: 1.0, "deg": 1.0, "rad": 180 / math.pi, "grad": 0.9, "turn": 360.0}


@cache
def named_colors() -> dict[str, str]:
    """CSS named colour → ``#rrggbb``."""
    colors: dict[str, str] = read_data("css_colors.json")["colors"]
    return colors


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def _number(token: str) -> tuple[float, str | None] | None:
    found = _NUMBER.match(token)
    if found is None:
        return None
    value = float(found.group(1))
    return (value, found.group(2)) if math.isfinite(value) else None


def _split_args(body: str) -> tuple[list[str], str | None] | None:
    """``"255, 0, 0, .5"`` or ``"255 0 0 / 50%"`` → (three channel tokens, alpha token)."""
    if "," in body:
        parts = [p.strip() for p in body.split(",")]
        if len(parts) not in (3, 4) or "/" in body:
            return None
        return parts[:3], (parts[3] if len(parts) == 4 else None)
    main, _, alpha = body.partition("/")
    parts = main.split()
    if len(parts) != 3 or (alpha and len(alpha.split()) != 1):
        return None
    return parts, (alpha.strip() or None)


def _alpha(token: str | None) -> float | None:
    if token is None:
        return 1.0
    parsed = _number(token)
    if parsed is None or parsed[1] not in (None, "%"):
        return None
    value, unit = parsed
    return _clamp(value / 100 if unit == "%" else value, 0.0, 1.0)


def _rgb(channels: list[str]) -> tuple[float, float, float] | None:
    values: list[float] = []
    for token in channels:
        parsed = _number(token)
        if parsed is None or parsed[1] not in (None, "%"):
            return None
        value, unit = parsed
        values.append(_clamp(value * 2.55 if unit == "%" else value, 0.0, 255.0))
    return values[0], values[1], values[2]


def _hsl(channels: list[str]) -> tuple[float, float, float] | None:
    parsed = [_number(token) for token in channels]
    if any(p is None for p in parsed):
        return None
    (hue, hue_unit), (sat, sat_unit), (light, light_unit) = parsed  # type: ignore[misc]
    if hue_unit not in _HUE_UNITS or sat_unit not in (None, "%") or light_unit not in (None, "%"):
        return None
    h = (hue * _HUE_UNITS[hue_unit]) % 360
    s, lum = _clamp(sat / 100, 0.0, 1.0), _clamp(light / 100, 0.0, 1.0)

    def channel(n: int) -> float:
        k = (n + h / 30) % 12
        return 255 * (lum - s * min(lum, 1 - lum) * max(-1, min(k - 3, 9 - k, 1)))

    return channel(0), channel(8), channel(4)


def _from_hex(digits: str) -> RGBA:
    if len(digits) in (3, 4):
        digits = "".join(ch * 2 for ch in digits)
    red, green, blue = (int(digits[i : i + 2], 16) for i in (0, 2, 4))
    alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
    return red, green, blue, alpha


def parse_css_color(value: object) -> RGBA | None:
    """``(r, g, b, alpha)`` with channels 0–255 and alpha 0–1, or None when not a CSS colour."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text == "transparent":
        return 0, 0, 0, 0.0
    if text in named_colors():
        text = named_colors()[text]
    hex_match = _HEX.match(text)
    if hex_match:
        return _from_hex(hex_match.group(1))
    function = _FUNCTION.match(text)
    split = _split_args(function.group(2)) if function else None
    if function is None or split is None:
        return None
    channels, alpha_token = split
    rgb = _rgb(channels) if function.group(1).startswith("rgb") else _hsl(channels)
    alpha = _alpha(alpha_token)
    if rgb is None or alpha is None:
        return None
    red, green, blue = (math.floor(c + 0.5) for c in rgb)
    return red, green, blue, alpha


def same_color(actual: object, expected: object) -> bool:
    """Both parse, the RGB channels are equal and the actual colour is not fully transparent."""
    a, e = parse_css_color(actual), parse_css_color(expected)
    return a is not None and e is not None and a[:3] == e[:3] and a[3] > 0
