"""Runs of different versions of one suite are not comparable: their items or scoring differ.

A report over such runs (single-call runs, or multi-turn runs, of one suite) is refused with a
message that names the versions and their files; ``select_version`` keeps the runs of one
version and lists the others as skipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from tooleval.report.loading import LoadedRuns, RunInfo


class MixedVersionsError(ValueError):
    """Runs of two or more versions of the same suite were given to one report."""


def versions_by_suite(runs: Sequence[RunInfo]) -> dict[str, dict[str, list[RunInfo]]]:
    """suite name -> version -> runs."""
    found: dict[str, dict[str, list[RunInfo]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        found[run.suite_name][run.suite_version].append(run)
    return found


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Sort key for versions such as "2.0.0" (numbers compare as numbers)."""
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in version.split("."))


def check_one_version(runs: Sequence[RunInfo]) -> None:
    """Raise MixedVersionsError when a suite appears in more than one version."""
    for suite, versions in versions_by_suite(runs).items():
        if len(versions) > 1:
            listing = "; ".join(
                f"{suite} {version}: {', '.join(r.path.name for r in found)}"
                for version, found in sorted(versions.items())
            )
            newest = max(versions, key=version_key)
            raise MixedVersionsError(
                f"runs of different suite versions are not comparable ({listing}); report one "
                f"version at a time: pass its files, or --suite-version {newest}"
            )


def select_version(loaded: LoadedRuns, version: str) -> LoadedRuns:
    """Only the runs of ``version``; the others are listed as skipped with the reason."""
    dropped = [
        (r.path, f"suite {r.suite_name} {r.suite_version}, not the selected {version}")
        for r in (*loaded.runs, *loaded.conversations)
        if r.suite_version != version
    ]
    return replace(
        loaded,
        runs=tuple(r for r in loaded.runs if r.suite_version == version),
        conversations=tuple(r for r in loaded.conversations if r.suite_version == version),
        skipped=(*loaded.skipped, *dropped),
    )
