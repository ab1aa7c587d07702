"""Record what an independent implementation computes for the embedded model, as test fixtures.

Hugging Face transformers loads the same GGUF file (``gguf_file=``: it dequantises the weights to
float32 and rebuilds the tokenizer and chat template from the file's metadata), then for a few
conversations this script records:

- the prompt token ids after ``apply_chat_template`` (checks tooleval's template and tokenizer),
- the greedy continuation's token ids (checks tooleval's engine end to end),
- the logits at a few positions, as the top-K token ids with their values (checks the forward
  pass within a tolerance), and the gap between the two best logits at every greedy step (a
  small gap would make the greedy comparison fragile; the script says so).

tests/test_local_reference.py compares tooleval's numpy engine against the output. Run it once,
with an environment that has torch, transformers and gguf (not tooleval's own: they are heavy),
for example the one ``scripts/setup-lm-eval.sh`` builds:

    PY='from tooleval.local.gguf_model import default_model_path as p; print(p())'
    GGUF="$(uv run python -c "$PY")"
    .venv-lmeval/bin/python scripts/record_local_reference.py --gguf "$GGUF" \\
        --out tests/fixtures/local_reference.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

NEW_TOKENS = 16
TOP_K = 16
LOGIT_STEPS = (0, 5, 11)  # greedy steps whose logits are recorded (0 = after the prompt)
MIN_SAFE_GAP = 0.05

SYSTEM = (
    "Du bist ein Assistent für deutsche Städte. Antworte nur mit einem JSON-Objekt der Form "
    '{"name": "<werkzeug>", "arguments": {...}}. Werkzeuge: weather(slug) liefert das aktuelle '
    "Wetter einer Stadt; pois(slug, type) listet Orte wie Apotheken oder Schulen."
)


def tool_lines(count: int) -> str:
    """The first ``count`` InfraNode tools as the prompt lists them (a long, real context)."""
    root = Path(__file__).resolve().parent.parent
    tools = json.loads((root / "src/tooleval/suites/infranode/tools.json").read_text("utf-8"))
    return "\n".join(
        json.dumps(
            {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for t in tools[:count]
    )


def conversations() -> list[list[dict[str, str]]]:
    long_system = f"{SYSTEM}\n\nVerfügbare Werkzeuge:\n{tool_lines(6)}"
    return [
        [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Wie ist das Wetter in Köln?"},
        ],
        [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Welche Apotheken gibt es in Bonn?"},
        ],
        [{"role": "user", "content": "What is the capital of France? Answer in one word."}],
        [
            {"role": "system", "content": long_system},
            {"role": "user", "content": "Gib mir einen Überblick über Hannover."},
        ],
    ]


def record(gguf: Path) -> dict[str, Any]:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    ).eval()
    stop = tok.convert_tokens_to_ids("<|im_end|>")
    cases = []
    for messages in conversations():
        prompt = list(
            tok.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=True, return_dict=False
            )
        )
        with torch.no_grad():
            out = model.generate(
                torch.tensor([prompt]),
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                max_new_tokens=NEW_TOKENS,
                do_sample=False,
                eos_token_id=stop,
                pad_token_id=stop,
            )
            generated = [int(t) for t in out[0, len(prompt) :]]
            stopped = bool(generated) and generated[-1] == stop
            generated = generated[:-1] if stopped else generated  # as tooleval returns them
            full = prompt + generated
            logits = model(torch.tensor([full])).logits[0]
        steps = [s for s in LOGIT_STEPS if s < len(generated)]
        gaps = []
        for step in range(len(generated)):
            top2 = torch.topk(logits[len(prompt) - 1 + step], 2).values
            gaps.append(round(float(top2[0] - top2[1]), 4))
        points = []
        for step in steps:
            row = logits[len(prompt) - 1 + step]
            values, ids = torch.topk(row, TOP_K)
            points.append(
                {
                    "position": len(prompt) - 1 + step,
                    "top_ids": [int(i) for i in ids],
                    "top_logits": [float(v) for v in values],
                }
            )
        cases.append(
            {
                "messages": messages,
                "prompt_ids": prompt,
                "greedy_ids": generated,
                "stopped": stopped,
                "logits": points,
                "min_greedy_gap": min(gaps) if gaps else None,
            }
        )
        if gaps and min(gaps) < MIN_SAFE_GAP:
            print(f"warning: a greedy step has a top-2 logit gap of {min(gaps)}", file=sys.stderr)
    return {
        "source": (
            f"transformers {transformers.__version__}, torch {torch.__version__}: "
            f"AutoModelForCausalLM.from_pretrained(dir, gguf_file={gguf.name!r}, "
            "dtype=float32), greedy generate, logits of one forward pass over prompt + output"
        ),
        "recorded_by": "scripts/record_local_reference.py",
        "gguf_file": gguf.name,
        "gguf_bytes": gguf.stat().st_size,
        "max_new_tokens": NEW_TOKENS,
        "cases": cases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gguf", type=Path, required=True, help="the GGUF file to record")
    parser.add_argument("--out", type=Path, required=True, help="fixture file to write")
    args = parser.parse_args()
    data = record(args.gguf.resolve())
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    gaps = [c["min_greedy_gap"] for c in data["cases"]]
    print(f"wrote {args.out}: {len(data['cases'])} cases, smallest greedy gaps {gaps}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
