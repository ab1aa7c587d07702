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
from typing import Any, NoReturn, TextIO
from urllib.parse import urlsplit

from tooleval.providers.base import Provider
from tooleval.providers.presets import OPENAI_COMPATIBLE, PRESETS
from tooleval.providers.reasoning import parse_reasoning
from tooleval.providers.registry import BACKENDS, LOCAL_MODEL, build_provider
from tooleval.records import ToolSpec
from tooleval.redaction import redact, remember_url
from tooleval.runner.records import INT_RANGES, RunConfig, out_of_range

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


# C0 and C1 controls (ESC starts terminal escape sequences) and the bidirectional overrides
# that reorder what a terminal shows.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(value: object) -> str:
    """``value`` as text safe for a terminal: known secrets masked, control characters and
    bidirectional overrides dropped (a server's error text may carry escape sequences)."""
    return _CONTROLS.sub("", redact(str(value)))


def shown(value: object) -> str:
    """``printable`` text to put inside rich markup (brackets escaped, so ``[/x]`` in a path,
    model name or server message is shown, not parsed)."""
    from rich.markup import escape

    return escape(printable(value))


# Everything a terminal would act on except rich's own colours (SGR: ESC [ ... m).
_UNSAFE = re.compile(
    "\x1b(?!\\[[0-9;]*m)|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)


class SafeStream:
    """A text stream for the rich consoles that print data (tables of model names, metrics):
    known secrets masked and every control sequence dropped except colours, whatever a
    results file or a server put into a string."""

    def __init__(self, sink: TextIO) -> None:
        self._sink = sink

    def write(self, text: str) -> int:
        return self._sink.write(_UNSAFE.sub("", redact(text)))

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, ...
        return getattr(self._sink, name)


def data_console(**options: Any) -> Any:
    """A rich Console on stdout for data: no markup parsing, no highlighting, ``SafeStream``."""
    from rich.console import Console

    stream: Any = SafeStream(sys.stdout)
    return Console(file=stream, highlight=False, markup=False, **options)


def fail(command: str, message: object, code: int = EXIT_BAD_INPUT) -> int:
    """Print ``tooleval COMMAND: message`` on stderr (one line, ``printable``) and return
    ``code``."""
    text = " ".join(printable(message).split())
    print(f"{' '.join(('tooleval', command)).strip()}: {text}", file=sys.stderr)
    return code


def bad_input(command: str, message: object) -> NoReturn:
    """``fail`` with exit code 2, raised (for use deep inside flag handling)."""
    raise SystemExit(fail(command, message))


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``tooleval run: argument --limit: must be at least 1,
    got '0'``) on stderr and exit code 2 (no usage dump; ``--help`` has it)."""

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


def setting(name: str, hint: str = "") -> Any:
    """The flag type of the numeric run setting ``name``: the range ``RunConfig`` allows
    (``runner.records``), so the command line and the library refuse the same values."""
    kind: type[int] | type[float] = int if name in INT_RANGES else float

    def check(text: str) -> int | float:
        value = _number(text, kind)
        problem = out_of_range(name, value)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"{problem}{hint}, got {text!r}")
        result: int | float = value
        return result

    check.__name__ = name
    return check


def port_number(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    value: int = _number(text, int)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, got {text!r}")
    return value


def host_name(text: str) -> str:
    """A host name or address as a URL or a socket can use it (labels of 1-63 characters)."""
    try:
        encoded = text.encode("idna") if text else b""
    except UnicodeError:
        encoded = b""
    if not encoded or len(encoded) > 253 or any(c in text for c in "/?#@ \\"):
        raise argparse.ArgumentTypeError(f"is not a valid host name, got {text!r}")
    return text


def url(text: str) -> str:
    """An http(s) URL with a valid host (and a valid port, if any), no spaces or controls."""
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or parts.port > 0
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"is not a valid URL ({exc}): {text!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise argparse.ArgumentTypeError(f"must be an http(s) URL with a host, got {text!r}")
    if _CONTROLS.search(text) or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"must not hold spaces or control characters: {text!r}")
    try:
        host_name(parts.hostname.strip("[]"))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"has an invalid host name: {text!r}") from None
    return text


def output_file(text: str) -> Path:
    """A file path to write (not empty, not ending in a separator)."""
    path = Path(text)
    if not text.strip() or text.endswith(("/", "\\")) or path.name in ("", ".", ".."):
        raise argparse.ArgumentTypeError(f"must name a file, got {text!r}")
    return path


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
    """An old flag kept as an alias: converts its value into the new flag's (``setting``, in
    the range RunConfig allows) and says so. With ``inverse`` (a delay becoming a rate), 0
    means no limit."""

    def __init__(
        self, *args: Any, new: str, setting: str, scale: float, inverse: bool = False, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        self.new, self.setting, self.scale, self.inverse = new, setting, scale, inverse

    def converted(self, text: str) -> float | None:
        try:
            number = non_negative_float(text)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentError(self, str(exc)) from None
        if number == 0 and self.inverse:
            return None
        value = self.scale / number if self.inverse and number else number * self.scale
        problem = out_of_range(self.setting, value) if number else "must be > 0"
        if problem is not None:
            raise argparse.ArgumentError(self, f"gives --{self.new} {value:g}, which {problem}")
        return value

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
        option_string: str | None = None,
    ) -> None:  # fmt: skip
        setattr(namespace, self.dest, self.converted(str(values)))
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
    g.add_argument(
        "--timeout", type=setting("timeout_s"), default=60.0,
        help="seconds for a whole request (at most 86400)",
    )  # fmt: skip
    return p


def run_flags() -> argparse.ArgumentParser:
    """How the requests go and what is planned: the same flags in every command that runs."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("requests")
    g.add_argument(
        "--concurrency", type=setting("concurrency"), default=4, metavar="N",
        help="requests in flight (1-1024)",
    )  # fmt: skip
    g.add_argument(
        "--rpm", type=setting("rpm", " (leave --rpm out for no limit)"), default=None,
        help="max requests per minute",
    )  # fmt: skip
    g.add_argument("--max-retries", type=setting("max_retries"), default=4, metavar="N")
    g.add_argument(
        "--max-requests", type=setting("max_requests"), default=None, metavar="N",
        help="send at most N requests, retries included, then stop",
    )  # fmt: skip
    g.add_argument(
        "--stop-after-errors", type=setting("stop_after_errors"), default=None, metavar="N",
        help="stop after N items failed with provider errors",
    )  # fmt: skip
    g.add_argument("--max-tokens", type=setting("max_tokens"), default=160, metavar="N")
    g.add_argument(
        "--temperature", type=setting("temperature"), default=None,
        help="sampling temperature (default: 0 where the model family takes any value, else "
        "its own default; a value its API rejects is refused before any request)",
    )  # fmt: skip
    g.add_argument(
        "--top-p", type=setting("top_p"), default=None, metavar="P",
        help="nucleus sampling (default: not sent)",
    )  # fmt: skip
    g.add_argument("--seed", type=setting("seed"), default=None)
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
    s.add_argument(
        "--limit", type=setting("limit"), default=None, metavar="N", help="first N tasks"
    )
    s.add_argument("--repeats", type=setting("repeats"), default=1, metavar="K")
    s.add_argument("--case", type=id_list, default=(), metavar="ID,ID", help="these task ids")
    s.add_argument("--category", action="append", default=None, help="this category (repeat)")
    s.add_argument("--output", type=output_file, default=None, help="results file")
    return p


def multi_turn_flags() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("conversations")
    g.add_argument(
        "--max-rounds", type=setting("max_rounds"), default=4, metavar="N", help="model turns"
    )
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
    if api_key_env is not None and backend in ("local", "fake"):
        raise ValueError(f"--api-key-env applies to the hosted backends, not {backend!r}")
    if args.base_url is not None and backend == "local":
        raise ValueError("--base-url applies to the hosted backends, not 'local'")
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
    """The RunConfig the shared flags describe (``extra``: command-specific fields).
    Credentials inside a URL flag (a password, ``?key=``) are secrets from here on."""
    for flag_url in (args.base_url, args.endpoint, getattr(args, "api_base_url", None)):
        remember_url(flag_url)
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
    config: RunConfig,
    script: Path | None = None,
    questions: Mapping[str, str] | None = None,
    tools: Sequence[ToolSpec] = (),
) -> Provider:
    """The provider a config names. The fake backend gets its script and the task questions
    (replies keyed by task id); the local backend gets the decoding mode and the tools a
    constrained answer must call; ``api_key_env`` names the key variable explicitly."""
    options: dict[str, Any] = {}
    if config.backend == "local":
        options.update(decoding=config.decoding, tools=tuple(tools))
    elif config.decoding != "free":
        raise ValueError(f"--decoding {config.decoding} is only available for --backend local")
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
