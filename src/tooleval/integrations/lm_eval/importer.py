"""Turn an lm-eval ``--log_samples`` output folder into a tooleval results document.

lm-eval writes ``<output_path>/<model>/results_<time>.json`` and, with ``--log_samples``,
``samples_<task>_<time>.jsonl`` beside it (one line per document: ``doc``, ``resps``,
``filtered_resps`` and the per-document metrics). Every logged output is parsed and scored
again with tooleval's own parser and scorer, so the imported run is scored exactly like a
direct ``tooleval run``; a score that differs from lm-eval's logged one is counted and
reported (it means the two sides ran different tooleval versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tooleval.fileio import JsonFileError, iter_jsonl, read_json
from tooleval.integrations.lm_eval import TASK_NAME
from tooleval.integrations.lm_eval.utils import task_of
from tooleval.metrics import METRIC_NAMES
from tooleval.parsing import parse_text
from tooleval.providers.base import ErrorClass
from tooleval.records import Task
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.runner.results import build_results
from tooleval.scoring import score_parse
from tooleval.suites import Suite
from tooleval.suites.infranode import load_suite, load_tools

RESULTS_PREFIX = "results_"
TRUNCATED_MESSAGE = (
    "the output ends inside an unclosed reasoning block: the token budget (max_gen_toks) "
    "was probably used up before the answer"
)


class LmEvalImportError(ValueError):
    """An lm-eval output that cannot be imported; the message names the file (and line)."""


@dataclass(frozen=True)
class LmEvalRun:
    """One lm-eval run of the task: its results file, samples file and parsed contents."""

    results_path: Path
    samples_path: Path
    results: Mapping[str, Any]
    samples: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class ImportOutcome:
    """The results document plus how many items lm-eval scored differently."""

    document: dict[str, Any]
    n_items: int
    mismatches: tuple[str, ...]


def results_files(path: Path, task: str = TASK_NAME) -> list[Path]:
    """The lm-eval results files under ``path`` (a folder or one file) that contain ``task``."""
    if path.is_file():
        found = [path]
    elif path.is_dir():
        found = sorted(path.rglob(f"{RESULTS_PREFIX}*.json"))
    else:
        raise LmEvalImportError(f"{path}: no such file or folder")
    return [p for p in found if task in _dict(_read_json(p).get("results"))]


def pick_results_file(path: Path, task: str = TASK_NAME) -> Path:
    """The newest results file with ``task``; several model folders are ambiguous."""
    found = results_files(path, task)
    if not found:
        raise LmEvalImportError(
            f"{path}: no lm-eval results_*.json with task {task!r} "
            "(run lm_eval with --output_path and --log_samples)"
        )
    folders = sorted({p.parent for p in found})
    if len(folders) > 1:
        listed = ", ".join(str(f) for f in folders)
        raise LmEvalImportError(f"{path}: runs of several models ({listed}); name one folder")
    return max(found, key=lambda p: p.name)


def samples_file_for(results_path: Path, task: str = TASK_NAME) -> Path:
    """``samples_<task>_<time>.jsonl`` written by the same run as ``results_<time>.json``."""
    stamp = results_path.stem.removeprefix(RESULTS_PREFIX)
    samples = results_path.with_name(f"samples_{task}_{stamp}.jsonl")
    if not samples.is_file():
        raise LmEvalImportError(
            f"{results_path}: no {samples.name} beside it (run lm_eval with --log_samples)"
        )
    return samples


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = read_json(path)
    except JsonFileError as exc:
        raise LmEvalImportError(str(exc)) from None
    if not isinstance(data, dict):
        raise LmEvalImportError(f"{path}: expected a JSON object")
    return data


def read_samples(path: Path) -> tuple[dict[str, Any], ...]:
    rows: list[dict[str, Any]] = []
    try:
        for number, row in iter_jsonl(path):
            if not isinstance(row.get("doc"), dict):
                message = f"{path}:{number}: not an lm-eval sample (no 'doc' object)"
                raise LmEvalImportError(message)
            rows.append(row)
    except JsonFileError as exc:
        raise LmEvalImportError(str(exc)) from None
    return tuple(rows)


def read_run(path: Path, task: str = TASK_NAME) -> LmEvalRun:
    """Find and read the newest run of ``task`` under ``path``."""
    results_path = pick_results_file(path, task)
    samples_path = samples_file_for(results_path, task)
    return LmEvalRun(
        results_path, samples_path, _read_json(results_path), read_samples(samples_path)
    )


def output_text(sample: Mapping[str, Any], where: str) -> str:
    """The generation lm-eval scored: ``filtered_resps[0]`` (the unfiltered one if absent)."""
    value: Any = sample.get("filtered_resps")
    if value is None:
        value = sample.get("resps")
    while isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, str):
        raise LmEvalImportError(f"{where}: no generated text in 'filtered_resps' or 'resps'")
    return value


def item_from_sample(task: Task, text: str) -> ItemRecord:
    """Parse and score one logged output with tooleval's parser and scorer.

    An output that ends inside an unclosed ``<think>`` block is recorded as
    ``reasoning_truncated`` (as ``tooleval run`` does): a miss in ``metrics``, as in lm-eval,
    but left out of ``metrics_answered``.
    """
    parsed = parse_text(text, load_tools())
    if parsed.reason == "reasoning_unterminated":
        return ItemRecord(
            task.id,
            task.category,
            0,
            raw_output=text,
            parsed=parsed,
            error_class=ErrorClass.REASONING_TRUNCATED.value,
            error_message=TRUNCATED_MESSAGE,
        )
    score = score_parse(task, parsed, "prompt")
    return ItemRecord(task.id, task.category, 0, raw_output=text, parsed=parsed, score=score)


def logged_differs(sample: Mapping[str, Any], record: ItemRecord) -> bool:
    """Whether lm-eval logged other values than tooleval's score for this item."""
    ours = {name: getattr(record.score, name) if record.score else 0 for name in METRIC_NAMES}
    return any(name in sample and sample[name] != ours[name] for name in METRIC_NAMES)


Records = dict[tuple[str, int], ItemRecord]


def items_from_run(run: LmEvalRun, suite: Suite[Task]) -> tuple[list[Task], Records, list[str]]:
    """Tasks in suite order, their records, and the ids whose logged score differs."""
    records: dict[tuple[str, int], ItemRecord] = {}
    tasks: dict[str, Task] = {}
    mismatches: list[str] = []
    for index, sample in enumerate(run.samples):
        where = f"{run.samples_path}:{index + 1}"
        try:
            task = task_of(dict(sample["doc"]))
        except ValueError as exc:
            raise LmEvalImportError(f"{where}: {exc}") from None
        if task.suite_version != suite.version:
            raise LmEvalImportError(
                f"{where}: task {task.id} is from suite version {task.suite_version}, "
                f"the installed suite is {suite.version}"
            )
        record = item_from_sample(task, output_text(sample, where))
        if record.key in records:
            raise LmEvalImportError(f"{where}: task {task.id} appears twice")
        records[record.key] = record
        tasks[task.id] = task
        if logged_differs(sample, record):
            mismatches.append(task.id)
    order = {task.id: n for n, task in enumerate(suite.tasks)}
    ordered = sorted(tasks.values(), key=lambda t: (order.get(t.id, len(order)), t.id))
    return ordered, records, mismatches


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def model_label(config: Mapping[str, Any], fallback: str) -> str:
    """A short model name from lm-eval's model_args (an absolute path becomes its last part)."""
    args = _dict(config.get("model_args"))
    name = str(args.get("pretrained") or args.get("model") or fallback)
    if Path(name).is_absolute():
        name = Path(name).name
    gguf = args.get("gguf_file")
    return f"{name}/{gguf}" if gguf else name


def run_config(
    run: LmEvalRun, tasks: list[Task], suite: Suite[Task], output: Path | None
) -> RunConfig:
    """The tooleval RunConfig that describes an lm-eval run (backend ``lm-eval:<model>``).

    ``limit`` is set only when the items are the suite's first N (lm-eval's ``--limit``), so
    reports can tell which tasks were planned; a ``--samples`` selection leaves it unset.
    """
    config = _dict(run.results.get("config"))
    task_cfg = _dict(_dict(run.results.get("configs")).get(TASK_NAME))
    gen = {**_dict(task_cfg.get("generation_kwargs")), **_dict(config.get("gen_kwargs"))}
    ids = [t.id for t in tasks]
    is_prefix = ids == [t.id for t in suite.tasks[: len(ids)]]
    base_url = _dict(config.get("model_args")).get("base_url")
    return RunConfig(
        backend=f"lm-eval:{config.get('model', 'unknown')}",
        model=model_label(config, str(run.results.get("model_name") or "unknown")),
        base_url=str(base_url) if base_url else None,
        mode="prompt",
        concurrency=1,
        limit=len(ids) if is_prefix and len(ids) < len(suite.tasks) else None,
        max_tokens=int(gen.get("max_gen_toks", 160)),
        temperature=float(gen.get("temperature", 0.0)),
        seed=_int_or_none(config.get("random_seed")),
        output=output,
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def started_at(results: Mapping[str, Any]) -> str:
    """lm-eval's ``date`` (a Unix time) as ISO 8601; empty when absent."""
    date = results.get("date")
    if isinstance(date, int | float):
        return datetime.fromtimestamp(float(date), UTC).isoformat(timespec="seconds")
    return ""


def import_run(
    run: LmEvalRun, output: Path | None = None, suite: Suite[Task] | None = None
) -> ImportOutcome:
    """Build the tooleval results document for one lm-eval run."""
    suite = suite or load_suite()
    tasks, records, mismatches = items_from_run(run, suite)
    config = run_config(run, tasks, suite, output)
    document = build_results(config, suite, tasks, records, started_at(run.results), None)
    document["setup"] = f"lm-eval {config.backend.split(':', 1)[1]}, {config.setup_label()}"
    document["source"] = {
        "tool": "lm-eval",
        "lm_eval_version": run.results.get("lm_eval_version"),
        "results_file": run.results_path.name,
        "samples_file": run.samples_path.name,
        "lm_eval_metrics": lm_eval_metrics(run.results),
    }
    return ImportOutcome(document, len(tasks), tuple(mismatches))


def lm_eval_metrics(results: Mapping[str, Any], task: str = TASK_NAME) -> dict[str, Any]:
    """lm-eval's aggregated metrics for ``task`` (``"name,filter"`` keys, stderr left out)."""
    block = _dict(_dict(results.get("results")).get(task))
    return {
        key.split(",", 1)[0]: value
        for key, value in block.items()
        if "," in key and "_stderr," not in key
    }
