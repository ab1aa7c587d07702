"""What every command shares: exit codes, one-line errors, validating flag types, the parent
parsers of the provider and run flags, and the one way flags become a RunConfig and a provider.

Exit codes (docs/cli.md):

====  ==================================================================================
0     done (a run: every planned item answered)
1     a check failed: selftest, audit defects, schema gate findings, routing misses,
      routing baseline
2     bad input: a flag out of range, an unknown name, an unreadable file
3     a run stopped incomplete (provider errors, an error cap or the request budget);
      its results file is written
130   interrupted (Ctrl-C); what was answered is kept
====  ==================================================================================
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from tooleval.providers.base import Provider
from tooleval.providers.presets import OPENAI_COMPATIBLE, PRESETS
from tooleval.providers.reasoning import parse_reasoning
from tooleval.providers.registry import BACKENDS, LOCAL_MODEL, build_provider
from tooleval.runner.records import RunConfig

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    EXIT_OK: "done (a run: every planned item answered)",
    EXIT_FAILED: (
        "a check failed (selftest, audit, schema gate, routing misses, routing baseline, "
        "tools check)"
    ),
    EXIT_BAD_INPUT: "bad input: a flag out of range, an unknown name, an unreadable file",
    EXIT_INCOMPLETE: "a run stopped incomplete; its results file is written",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); what was answered is kept",
}

# The Cesium guide's --provider names: (backend, preset). ``openai`` is any OpenAI-compatible
# service at --endpoint, with the key in MODEL_EVAL_API_KEY and the model in MODEL_EVAL_MODEL.
GUIDE_PROVIDERS: dict[str, tuple[str, str | None]] = {
    "workers-ai": ("openai", "workers-ai"),
    "deepseek": ("openai", "deepseek"),
    "openai": ("openai", None),
}
GUIDE_KEY_ENV = "MODEL_EVAL_API_KEY"
GUIDE_MODEL_ENV = "MODEL_EVAL_MODEL"


# --- errors ---------------------------------------------------------------------------------


def fail(command: str, message: object, code: int = EXIT_BAD_INPUT) -> int:
    """Print ``tooleval COMMAND: message`` on stderr (one line) and return ``code``."""
    text = " ".join(str(message).split())
    print(f"{' '.join(('tooleval', command)).strip()}: {text}", file=sys.stderr)
    return code


def bad_input(command: str, message: object) -> NoReturn:
    """``fail`` with exit code 2, raised (for use deep inside flag handling)."""
    raise SystemExit(fail(command, message))


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``tooleval run: argument --rpm: must be > 0, got '0'``
    on stderr and exit code 2 (no usage dump; ``--help`` has it)."""

    def error(self, message: str) -> NoReturn:
        bad_input(self.prog.removeprefix("tooleval").strip(), message)


# --- validating flag types ------------------------------------------------------------------


def _number(text: str, kind: type[int] | type[float]) -> Any:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1 (counts, caps, sizes)."""
    value: int = _number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """A whole number >= 0 (retries)."""
    value: int = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def finite_float(text: str) -> float:
    """Any finite number (no nan, no inf)."""
    value: float = _number(text, float)
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (temperatures, prices)."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def unit_interval(text: str) -> float:
    """A finite number in (0, 1] (top_p)."""
    value = finite_float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be > 0 and at most 1, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (rates per minute, timeouts in seconds)."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def port_number(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    value: int = _number(text, int)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, got {text!r}")
    return value


def url(text: str) -> str:
    """An http(s) URL with a host (and a valid port, if any)."""
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or parts.port > 0
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"is not a valid URL ({exc}): {text!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise argparse.ArgumentTypeError(f"must be an http(s) URL with a host, got {text!r}")
    return text


def reasoning(text: str) -> str:
    """off, low, medium, high or a token budget."""
    try:
        parse_reasoning(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("reasoning: ")) from None
    return text


def name_in(table: Mapping[str, object], kind: str) -> Any:
    """A type accepting the names of ``table`` (``unknown backend 'x'; valid backends: …``)."""

    def check(text: str) -> str:
        if text not in table:
            valid = ", ".join(table)
            raise argparse.ArgumentTypeError(f"unknown {kind} {text!r}; valid {kind}s: {valid}")
        return text

    return check


def id_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of ids (empty entries dropped)."""
    ids = tuple(part.strip() for part in text.split(",") if part.strip())
    if not ids:
        raise argparse.ArgumentTypeError(f"needs at least one id, got {text!r}")
    return ids


class DeprecatedAlias(argparse.Action):
    """An old flag kept as an alias: converts its value into the new flag's and says so."""

    def __init__(self, *args: Any, new: str, scale: float, inverse: bool = False, **kw: Any):
        super().__init__(*args, **kw)
        self.new, self.scale, self.inverse = new, scale, inverse

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
        option_string: str | None = None,
    ) -> None:  # fmt: skip
        number = float(values)
        converted = (self.scale / number) if self.inverse else number * self.scale
        setattr(namespace, self.dest, converted if number > 0 else None)
        print(
            f"tooleval: {option_string} is deprecated; use --{self.new.replace('_', '-')}",
            file=sys.stderr,
        )


# --- the shared flags -----------------------------------------------------------------------


def provider_flags() -> argparse.ArgumentParser:
    """Which model answers, and where: the same flags in run, episodes and model-tools."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("provider")
    g.add_argument(
        "--backend", type=name_in(BACKENDS, "backend"), default="local",
        help=f"{', '.join(BACKENDS)} (default %(default)s)",
    )  # fmt: skip
    g.add_argument("--model", default=None, help="model name (local: a GGUF path or default)")
    g.add_argument("--base-url", type=url, default=None, help="API base URL (overrides preset)")
    g.add_argument("--endpoint", type=url, default=None, help="full chat-completions URL")
    g.add_argument(
        "--preset", type=name_in(PRESETS, "preset"), default=None,
        help=f"openai-compatible endpoint: {', '.join(OPENAI_COMPATIBLE)}",
    )  # fmt: skip
    g.add_argument(
        "--provider",
        choices=tuple(GUIDE_PROVIDERS),
        default=None,
        help="the Cesium guide's names: workers-ai, deepseek, openai (with --endpoint)",
    )
    g.add_argument("--api-key-env", default=None, metavar="VAR", help="variable holding the key")
    g.add_argument("--mode", choices=("prompt", "native"), default="prompt")
    g.add_argument("--script", type=Path, default=None, help="fake backend: replies JSONL")
    g.add_argument("--timeout", type=positive_float, default=60.0, help="seconds per request")
    return p


def run_flags() -> argparse.ArgumentParser:
    """How the requests go and what is planned: the same flags in every command that runs."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("requests")
    g.add_argument("--concurrency", type=positive_int, default=4, metavar="N")
    g.add_argument("--rpm", type=positive_float, default=None, help="max requests per minute")
    g.add_argument("--max-retries", type=non_negative_int, default=4, metavar="N")
    g.add_argument(
        "--max-requests", type=positive_int, default=None, metavar="N",
        help="send at most N requests, retries included, then stop",
    )  # fmt: skip
    g.add_argument(
        "--stop-after-errors", type=positive_int, default=None, metavar="N",
        help="stop after N items failed with provider errors",
    )  # fmt: skip
    g.add_argument("--max-tokens", type=positive_int, default=160, metavar="N")
    g.add_argument(
        "--temperature", type=non_negative_float, default=None,
        help="sampling temperature (default: 0 where the model family takes any value, else "
        "its own default; a value its API rejects is refused before any request)",
    )  # fmt: skip
    g.add_argument(
        "--top-p", type=unit_interval, default=None, metavar="P",
        help="nucleus sampling (default: not sent)",
    )  # fmt: skip
    g.add_argument("--seed", type=int, default=None)
    g.add_argument(
        "--reasoning", type=reasoning, default=None,
        help="off|low|medium|high|N (tokens): mapped to the model family's own field "
        "(default: the family's own behaviour)",
    )  # fmt: skip
    g.add_argument(
        "--no-tools-check", dest="tools_check", action="store_false",
        help="native mode: do not check that the server put the tools into the prompt",
    )  # fmt: skip
    s = p.add_argument_group("items")
    s.add_argument("--limit", type=positive_int, default=None, metavar="N", help="first N tasks")
    s.add_argument("--repeats", type=positive_int, default=1, metavar="K")
    s.add_argument("--case", type=id_list, default=(), metavar="ID,ID", help="these task ids")
    s.add_argument("--category", action="append", default=None, help="this category (repeat)")
    s.add_argument("--output", type=Path, default=None, help="results file")
    return p


def multi_turn_flags() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("conversations")
    g.add_argument("--max-rounds", type=positive_int, default=4, metavar="N", help="model turns")
    return p


# --- flags -> config and provider -----------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where requests go, resolved from --backend/--preset/--provider/--base-url/--endpoint."""

    backend: str
    model: str
    preset: str | None
    base_url: str | None
    endpoint: str | None
    api_key_env: str | None
    rpm: float | None


def resolve_target(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> Target:
    """The backend, preset, model and key variable the flags name; ValueError when they clash
    or something required is missing."""
    env = os.environ if env is None else env
    backend, preset = args.backend, args.preset
    api_key_env = args.api_key_env
    model = args.model
    if args.provider is not None:
        if preset is not None:
            raise ValueError("give --provider or --preset, not both")
        backend, preset = GUIDE_PROVIDERS[args.provider]
        if args.provider == "openai":
            if not (args.endpoint or args.base_url):
                raise ValueError("--provider openai needs --endpoint URL")
            model = model or env.get(GUIDE_MODEL_ENV) or None
            if api_key_env is None and env.get(GUIDE_KEY_ENV):
                api_key_env = GUIDE_KEY_ENV
    if args.endpoint is not None and backend != "openai":
        raise ValueError(f"--endpoint applies to the openai backend, not {backend!r}")
    found = PRESETS.get(preset) if preset else None
    model = model or (found.default_model if found else None)
    if model is None and backend in ("local", "fake"):
        model = LOCAL_MODEL
    if model is None:
        raise ValueError(f"--model is required for --backend {backend}")
    rpm = args.rpm if args.rpm is not None else (found.rpm if found else None)
    return Target(backend, model, preset, args.base_url, args.endpoint, api_key_env, rpm)


def default_output(model: str, suffix: str = "") -> Path:
    """``results/<model>[.suffix].json`` with the model name made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model).name).strip("_.") or "model"
    return Path("results") / f"{safe}{'.' + suffix if suffix else ''}.json"


def config_from_args(
    args: argparse.Namespace, suite: str, output_suffix: str = "", **extra: Any
) -> RunConfig:
    """The RunConfig the shared flags describe (``extra``: command-specific fields)."""
    target = resolve_target(args)
    return RunConfig(
        suite=suite,
        backend=target.backend,
        model=target.model,
        base_url=target.base_url,
        endpoint=target.endpoint,
        preset=target.preset,
        api_key_env=target.api_key_env,
        mode=args.mode,
        concurrency=args.concurrency,
        rpm=target.rpm,
        stop_after_errors=args.stop_after_errors,
        max_requests=args.max_requests,
        limit=args.limit,
        repeats=args.repeats,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.seed,
        reasoning=args.reasoning,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        output=args.output or default_output(target.model, output_suffix),
        max_rounds=getattr(args, "max_rounds", 4),
        categories=tuple(args.category or ()),
        task_ids=tuple(args.case),
        tools_check=args.tools_check,
        **extra,
    )


def provider_for(
    config: RunConfig, script: Path | None = None, questions: Mapping[str, str] | None = None
) -> Provider:
    """The provider a config names. The fake backend gets its script and the task questions
    (replies keyed by task id); ``api_key_env`` names the key variable explicitly."""
    options: dict[str, Any] = {}
    if config.backend == "fake":
        options["questions"] = dict(questions or {})
        if script is not None:
            options["script"] = script
    if config.api_key_env is not None:
        options["api_key_env"] = config.api_key_env
    if config.endpoint is not None:
        options["endpoint"] = config.endpoint
    return build_provider(
        config.backend,
        model=config.model,
        base_url=config.base_url,
        preset=config.preset,
        timeout_s=config.timeout_s,
        **options,
    )


def questions_of(tasks: Sequence[Any]) -> dict[str, str]:
    """task id -> the task's question, for fake replies keyed by task id."""
    return {task.id: task.question for task in tasks}
