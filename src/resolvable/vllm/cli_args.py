"""``vllm serve`` arguments: vLLM's argv pre-processing (spec §1.3) and argparse over one release's
flag table (``resolvable.vllm.flags``), then the split into what the rules read and what they don't.

Invariants:

* ``preprocess`` re-states ``utils/argparse_utils.py : FlexibleArgumentParser.parse_args`` step by
  step: ``--model`` moved to the positional slot on ``serve``, the ``--config`` YAML file (CLI >
  file > defaults), ``_`` → ``-`` in option names (before the first ``.``), ``-O<n>``, and the
  dotted JSON keys (``--compilation-config.mode 3``, ``-cc.cudagraph_mode=FULL``, ``--x.list+ a,b``)
  folded into one JSON value per flag;
* the parser has exactly the release's option strings (aliases and negative spellings included),
  converters and choices, so what vLLM rejects is rejected here with argparse's words; an unknown
  option is refused with a suggestion, or with the release that added or removed it;
* flags the user did not pass are absent (``SUPPRESS``); every passed flag is kept with the
  spelling the user typed; those whose dest the rules read are *modelled*, the rest are listed as
  not modelled, never dropped;
* the ``--config`` file is read with PyYAML's ``safe_load`` (imported here, lazily), at most
  ``CONFIG_MAX_BYTES``, anchors/aliases refused (no alias expansion bombs).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import EngineParserError, closest
from .flags import NO_DEFAULT, Flag, FlagTable, is_modelled, load_table, option_history

#: The largest ``--config`` file read (vLLM reads any size; a flag file is a few KiB).
CONFIG_MAX_BYTES = 1 << 20
#: The most keys a ``--config`` YAML file may hold (issue 29: each unknown key costs a guess).
CONFIG_MAX_KEYS = 1024
#: Unknown options that get a "did you mean" guess, and that are listed, in one message.
MAX_GUESSES = 8
#: How close an unknown flag must be to a real one for a "did you mean" (a typo, never a far guess).
TYPO_CUTOFF = 0.85

_RECORD = "_resolvable_passed"


class VllmArgumentError(EngineParserError):
    """A command line vLLM would refuse while parsing it (argparse's message, vLLM's words)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise VllmArgumentError(f"vllm serve: {message}")


def _record(namespace: argparse.Namespace, option: str | None, dest: str, value: Any) -> None:
    passed = getattr(namespace, _RECORD, None)
    if passed is None:
        passed = []
        setattr(namespace, _RECORD, passed)
    passed.append((option or dest, dest, value))


class _Store(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        _record(namespace, option_string, self.dest, values)


class _Append(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(values)
        setattr(namespace, self.dest, items)
        _record(namespace, option_string, self.dest, values)


class _StoreTrue(argparse.Action):
    def __init__(self, option_strings: Any, dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, True)
        _record(namespace, option_string, self.dest, True)


class _Switch(argparse.Action):
    """argparse.BooleanOptionalAction and vLLM's EnableDisableAction (0.33+): the positive
    spellings store True, every negative (``--no-x``, the ``--enable-``/``--disable-`` inverse)
    False."""

    def __init__(self, option_strings: Any, dest: str, negatives: Sequence[str] = (), **kwargs: Any) -> None:
        self.negatives = frozenset(negatives)
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        value = option_string not in self.negatives
        setattr(namespace, self.dest, value)
        _record(namespace, option_string, self.dest, value)


def _kwargs(flag: Flag) -> dict[str, Any]:
    from .flags.values import converter

    if flag.action == "store_true":
        return {"action": _StoreTrue}
    if flag.action == "boolean_optional":
        return {"action": _Switch, "negatives": flag.negatives}
    kwargs: dict[str, Any] = {
        "action": _Append if flag.action == "append" else _Store,
        "type": converter(flag.type, flag.optional),
    }
    if flag.choices is not None:
        kwargs["choices"] = list(flag.choices)
    else:
        kwargs["metavar"] = flag.dest.upper()
    if flag.nargs is not None:
        kwargs["nargs"] = flag.nargs
        if flag.nargs == "?":
            kwargs["const"] = flag.const
    return kwargs


def build_parser(release: str | None = None) -> argparse.ArgumentParser:
    """An argparse parser with every flag of ``vllm serve`` of ``release`` (default: newest)."""
    table = load_table(release)
    parser = _Parser(prog="vllm serve", add_help=False)
    for flag in table:
        if flag.positional:
            parser.add_argument(flag.dest, nargs="?", default=argparse.SUPPRESS)
            continue
        options = (
            [*flag.options, *flag.negatives] if flag.action == "boolean_optional" else list(flag.options)
        )
        parser.add_argument(*options, dest=flag.dest, default=argparse.SUPPRESS, **_kwargs(flag))
    return parser


# -- pre-processing (FlexibleArgumentParser.parse_args) ---------------------------------------


def preprocess(
    argv: Sequence[str],
    table: FlagTable,
    *,
    serve: bool = True,
    read_file: Callable[[str], str] | None = None,
) -> tuple[list[str], list[str]]:
    """vLLM's rewrites of argv before argparse (spec §1.3), and a note per rewrite worth saying.

    ``argv`` is what follows ``vllm serve`` (``serve=True``: the model may be positional) or the
    api_server module (``serve=False``)."""
    args = list(argv)
    notes: list[str] = []
    if serve:
        for i, arg in enumerate(args):
            if re.match(r"^--model(=.+|$)", arg):
                if arg == "--model":
                    if i + 1 >= len(args):
                        raise VllmArgumentError("vllm serve: argument --model: expected one argument")
                    tag, rest = args[i + 1], i + 2
                else:
                    tag, rest = arg[len("--model=") :], i + 1
                args = [tag, *args[:i], *args[rest:]]
                notes.append(
                    "vLLM warns: with `vllm serve`, give the model as the positional argument, not --model"
                )
                break
        if (
            args
            and args[0].startswith("-")
            and not any(re.match(r"^--config(=.+|$)", a) for a in args)
            and any(re.match(r"^--served[-_]model[-_]name(=.+|$)", a) for a in args)
        ):
            raise VllmArgumentError(
                "`model` should be provided as the first positional argument when using `vllm serve`. "
                "i.e. `vllm serve <model> --<arg> <value>`."
            )
    if "--config" in args:
        args = _pull_config(args, table, serve=serve, read_file=read_file)
        from .launch import MAX_COMMAND_WORDS

        if len(args) > MAX_COMMAND_WORDS:
            raise VllmArgumentError(
                f"--config: the command and its flag file make {len(args):,} words, more than the "
                f"{MAX_COMMAND_WORDS:,} a launch command holds; give a YAML file of flag: value"
            )
        notes.append("flags from the --config file are read after the model and before the command line's")
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            head, dot, tail = key[2:].partition(".")
            out.append("--" + head.replace("_", "-") + dot + tail + eq + value)
        elif arg.startswith("-O") and arg != "-O":
            out += ["--optimization-level", arg[3:] if arg[2:3] == "=" else arg[2:]]
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            out.append("--optimization-level")
        else:
            out.append(arg)
    return _fold_dotted(out, notes), notes


def _fold_dotted(args: list[str], notes: list[str]) -> list[str]:
    """``--x.a.b v`` / ``-cc.a=v`` / ``--x.list+ a,b`` → one ``--x JSON`` per flag (appended at
    the end, as vLLM does), values JSON-decoded, else human-readable ints, else strings."""
    from .flags.values import human_readable_int

    folded: dict[str, dict[str, Any]] = {}
    duplicates: list[str] = []
    out: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if not (arg.startswith("-") and "." in arg):
            out.append(arg)
            continue
        if "=" in arg:
            key, value_text = arg.split("=", 1)
            if "." not in key:  # the dot was only in the value
                out.append(arg)
                continue
        else:
            if i + 1 >= len(args):
                raise VllmArgumentError(f"vllm serve: argument {arg}: expected one argument")
            key, value_text = arg, args[i + 1]
            skip = True
        if key.endswith("+"):
            key = key[:-1]
            value_text = json.dumps(value_text.split(","))
        top, *path = key.split(".")
        try:
            value: Any = json.loads(value_text)
        except ValueError:
            try:
                value = human_readable_int(value_text)
            except (ValueError, argparse.ArgumentTypeError):
                value = value_text
        node = folded.setdefault(top, {})
        for part in path[:-1]:
            nxt = node.get(part)
            if not isinstance(nxt, dict):
                nxt = node[part] = {}
            node = nxt
        last = path[-1] if path else ""
        if isinstance(value, list) and isinstance(node.get(last), list):
            node[last] = node[last] + value
        else:
            if last in node:
                duplicates.append(f"{top}.{'.'.join(path)}")
            node[last] = value
    if duplicates:
        notes.append(f"vLLM warns: Found duplicate keys {', '.join(duplicates)} (the last value wins)")
    for top, value in folded.items():
        out += [top, json.dumps(value)]
    return out


def _pull_config(
    args: list[str], table: FlagTable, *, serve: bool, read_file: Callable[[str], str] | None
) -> list[str]:
    """``FlexibleArgumentParser._pull_args_from_config``: the file's flags go after the
    sub-command and model, before the rest, so the command line wins over the file."""
    if args.count("--config") > 1:
        raise VllmArgumentError("More than one config file specified!")
    index = args.index("--config")
    if index == len(args) - 1:
        raise VllmArgumentError("No config file specified! Please check your command-line arguments.")
    path = args[index + 1]
    file_args = load_config_file(path, table, read_file=read_file)
    if not serve or (args and args[0].startswith("-") and not serve):
        return file_args + args[:index] + args[index + 2 :]
    model_in_cli = bool(args) and not args[0].startswith("-")
    if not model_in_cli and "--model" not in file_args:
        raise VllmArgumentError(
            "No model specified! Please specify model either as a positional argument or in a config file."
        )
    if model_in_cli:
        return args[:1] + file_args + args[1:index] + args[index + 2 :]
    return file_args + args[:index] + args[index + 2 :]


def load_config_file(
    path: str, table: FlagTable, *, read_file: Callable[[str], str] | None = None
) -> list[str]:
    """``FlexibleArgumentParser.load_config_file``: a YAML mapping → flags (``true`` → ``--k``,
    ``false`` → ``--no-k`` when that spelling exists, lists → repeated values, mappings → JSON)."""
    extension = path.split(".")[-1]
    if extension not in ("yaml", "yml"):
        raise VllmArgumentError(f"Config file must be of a yaml/yml type. {extension} supplied")
    text = (read_file or _read_text)(path)
    config = _safe_yaml(text, path)
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise VllmArgumentError(f"--config {path}: the file must hold a mapping of flag: value")
    if len(config) > CONFIG_MAX_KEYS:  # this tool's bound on work: its input error (exit 2)
        from ..errors import ConfigError

        raise ConfigError(
            f"--config {path}: {len(config):,} keys, more than the {CONFIG_MAX_KEYS:,} a flag file holds "
            "(vLLM has a few hundred flags); give a YAML file of flag: value"
        )
    out: list[str] = []
    for key, value in config.items():
        if isinstance(value, bool):
            if value:
                out.append(f"--{key}")
            elif f"--no-{key}" in table.by_option:
                out.append(f"--no-{key}")
        elif isinstance(value, list):
            if value:
                out.append(f"--{key}")
                out += [str(item) for item in value]
        elif isinstance(value, dict):
            out += [f"--{key}", json.dumps(value)]
        else:
            out += [f"--{key}", str(value)]
    return out


def _read_text(path: str) -> str:
    """The YAML flag file, through the guarded read (a regular file only, at most
    ``CONFIG_MAX_BYTES``, a FIFO or ``/dev/zero`` refused without blocking); a file that cannot be
    read is the tool's input error (``ConfigError``, exit 2), not the engine's refusal."""
    from ..errors import ConfigError
    from ..rules import read_bounded

    try:
        raw = read_bounded(path, CONFIG_MAX_BYTES, what="--config YAML flag file")
    except ConfigError as exc:  # this tool cannot read it: its input error (exit 2), not vLLM's refusal
        raise ConfigError(
            f"--config {path}: cannot read it ({exc}); give the path of a YAML flag file"
        ) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VllmArgumentError(f"--config {path}: not UTF-8 text; give a YAML flag file") from None


def _safe_yaml(text: str, path: str) -> Any:
    if len(text) > CONFIG_MAX_BYTES:
        raise VllmArgumentError(f"--config {path}: larger than {CONFIG_MAX_BYTES} bytes")
    try:
        import yaml
    except ImportError:
        raise VllmArgumentError(
            "--config needs PyYAML to read the file: pip install 'resolvable[yaml]' (or pyyaml)"
        ) from None

    class _NoAliases(yaml.SafeLoader):
        """safe_load without anchors/aliases: a flag file has no use for them, and nested aliases
        expand exponentially when the value is turned into JSON."""

        def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(
                    None, None, "anchors and aliases are not read in a flag file", event.start_mark
                )
            return super().compose_node(parent, index)

    try:
        return yaml.load(text, Loader=_NoAliases)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()
        raise VllmArgumentError(
            f"--config {path}: not valid YAML ({' '.join(line.strip() for line in first[:3])})"
        ) from None


# -- parsing ---------------------------------------------------------------------------------


class VllmParsed:
    """One parsed ``vllm serve`` command line of one release.

    ``model``: the positional model (or ``--model``); ``values``: every passed flag (dest → value,
    normalised as vLLM does); ``modelled``: the dests the rules read; ``not_modelled``: the others
    (dest → value) and ``shown`` (them as typed); ``notes``: vLLM's rewrites and warnings."""

    def __init__(
        self,
        release: str,
        model: str | None,
        values: dict[str, Any],
        passed: list[tuple[str, str, Any]],
        notes: list[str],
    ) -> None:
        self.release, self.model, self.values, self.passed, self.notes = release, model, values, passed, notes
        self.modelled = {k: v for k, v in values.items() if is_modelled(k)}
        for dest, read in _READ_KEYS.items():  # JSON flags the rules read only in part
            value = values.get(dest)
            if isinstance(value, dict):
                unread = [k for k in value if k not in read]
                if unread:
                    notes = [*notes, f"not modelled: --{dest.replace('_', '-')} keys {', '.join(unread)}"]
                    self.notes = notes
        self.not_modelled = {k: v for k, v in values.items() if not is_modelled(k) and k != "model_tag"}
        self.shown = [
            option if isinstance(value, bool) else f"{option} {_show(value)}"
            for option, dest, value in passed
            if dest in self.not_modelled
        ]

    def __repr__(self) -> str:
        return f"VllmParsed(release={self.release!r}, model={self.model!r}, values={self.values!r})"

    def shown_all(self) -> list[str]:
        """Every passed flag as typed (modelled and not)."""
        return [
            option if isinstance(value, bool) else f"{option} {_show(value)}"
            for option, _, value in self.passed
        ]

    def merged(self, other: VllmParsed) -> VllmParsed:
        """These flags, then ``other``'s (given later: they win, as on vLLM's command line)."""
        return VllmParsed(
            self.release,
            self.model or other.model,
            {**self.values, **other.values},
            self.passed + other.passed,
            self.notes + [n for n in other.notes if n not in self.notes],
        )


#: The keys of the translated JSON flags that the rules read (``resolution_kwargs``); the
#: ``--attention-config`` keys are all read (``api.flatten_attention_config`` refuses others).
_READ_KEYS = {
    "compilation_config": (
        "cudagraph_mode",
        "mode",
        "cudagraph_capture_sizes",
        "max_cudagraph_capture_size",
        "prefill_cudagraph_capture_token_sizes",
        "max_decode_cudagraph_capture_requests",
    ),
    "speculative_config": (
        "num_speculative_tokens",
        "method",
        "model",
        "prompt_lookup_min",
        "prompt_lookup_max",
        "tensor_parallel_size",
    ),
}


#: ``CompilationMode`` by number (``-cc.mode 3``, ``-O`` tables).
_COMPILATION_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")


def _compilation_kwargs(compilation: dict[str, Any]) -> dict[str, Any]:
    """``-cc.mode`` (name or number), ``-cc.cudagraph_capture_sizes``, ``-cc.max_cudagraph_capture_size``
    and the 0.34 prefill/decode size keys → the engine-configuration fields."""
    out: dict[str, Any] = {}
    mode = compilation.get("mode")
    if mode is not None:
        text = str(mode).strip().upper()
        out["compilation_mode"] = _COMPILATION_MODES[int(text)] if text.isdigit() and int(text) < 4 else text
    for key in (
        "cudagraph_capture_sizes",
        "max_cudagraph_capture_size",
        "prefill_cudagraph_capture_token_sizes",
        "max_decode_cudagraph_capture_requests",
    ):
        if compilation.get(key) is not None:
            out[key] = compilation[key]
    return out


def _both_capture_spellings(values: dict[str, Any], compilation: dict[str, Any]) -> str | None:
    """The first capture-size key given both as a flag and in ``-cc`` (``EngineArgs.
    create_engine_config`` refuses it, ``ValueError``, 0.30-0.34; the rule
    ``config/late_args.py : capture_size_spellings`` raises it in vLLM's order), else None."""
    for key in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
        if values.get(key) is not None and compilation.get(key) is not None:
            return key
    return None


def resolution_kwargs(parsed: VllmParsed) -> dict[str, Any]:
    """The keyword arguments of ``resolve_vllm_args`` for a parsed command line: every passed flag
    whose dest is a ``VllmArgs`` field, and the translated ones (``--attention-config`` as is,
    ``-cc.cudagraph_mode``, ``--speculative-config.num_speculative_tokens``/``--spec-tokens``, a
    ``--kv-transfer-config``, ``--language-model-only``)."""
    from ..rules import schema_of
    from .args import VllmArgs

    specs = {n: spec for n, spec in schema_of(VllmArgs).fields.items() if spec.arg.cli}
    values = parsed.values
    out = {k: _as_field(v, specs[k]) for k, v in values.items() if k in specs and k != "model"}
    if values.get("attention_config") is not None:
        out["attention_config"] = values["attention_config"]
    compilation = values.get("compilation_config") or {}
    if isinstance(compilation, dict) and compilation.get("cudagraph_mode") is not None:
        out["cudagraph_mode"] = str(compilation["cudagraph_mode"]).upper()
    if isinstance(compilation, dict):  # -cc keys the engine-configuration rules read
        both = _both_capture_spellings(values, compilation)
        out.update(_compilation_kwargs(compilation))
        if both is not None:
            out["capture_size_conflict"] = both
    level = out.get("optimization_level")
    if isinstance(level, str) and level.strip().isdigit():  # an OptimizationLevel: pydantic makes it an int
        out["optimization_level"] = int(level)
    speculative = values.get("speculative_config") or {}
    spec = dict(speculative) if isinstance(speculative, dict) else {}
    for flag, key in (
        ("spec_method", "method"),
        ("spec_model", "model"),
        ("spec_tokens", "num_speculative_tokens"),
    ):
        if values.get(flag) is not None:  # create_speculative_config merges --spec-* into the JSON
            spec.setdefault(key, values[flag])
    out.pop("speculative_config", None)
    if spec:  # the rules take the JSON text
        out["speculative_config"] = json.dumps(spec, sort_keys=True)
    tokens = speculative.get("num_speculative_tokens") if isinstance(speculative, dict) else None
    if tokens is None:
        tokens = values.get("spec_tokens")
    if tokens is not None:
        out["num_speculative_tokens"] = int(tokens)
    if values.get("kv_transfer_config"):
        out["kv_connector"] = True
    if values.get("language_model_only"):
        out["disable_multimodal"] = True
    if values.get("hf_overrides"):  # applied to the model config (config/hf_overrides.py)
        out["hf_overrides"] = values["hf_overrides"]
    return out


def _as_field(value: Any, spec: Any) -> Any:
    """A parsed flag value in the form its ``VllmArgs`` field holds: a JSON object as its JSON
    text (fields are scalars), a number given as text (``-O3`` → ``"3"``) as the number."""
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    default = spec.default
    if isinstance(value, str) and isinstance(default, (int, float)) and not isinstance(default, bool):
        try:
            return type(default)(value)
        except ValueError:
            return value
    return value


def add_cli_args(parser: argparse.ArgumentParser, release: str | None = None) -> None:
    """Add every flag of ``vllm serve`` of ``release`` to ``parser`` (not the positional model:
    the caller has its own; nothing stored unless passed, each passed flag recorded)."""
    table = load_table(release)
    group = parser.add_argument_group(f"vLLM {table.release} serve arguments (every flag is accepted)")
    for flag in table:
        if flag.positional:
            continue
        options = (
            [*flag.options, *flag.negatives] if flag.action == "boolean_optional" else list(flag.options)
        )
        dest = "_vllm_model" if flag.dest == "model" else flag.dest
        group.add_argument(
            *options,
            dest=dest,
            default=argparse.SUPPRESS,
            help=_help(flag).replace("%", "%%"),
            **_kwargs(flag),
        )


def _help(flag: Flag) -> str:
    text = "read by the rules" if is_modelled(flag.dest) else "accepted, not modelled"
    if flag.deprecated:
        text += " [deprecated]"
    if (
        flag.default is not None
        and not isinstance(flag.default, (list, dict))
        and flag.default is not NO_DEFAULT
    ):
        text += f" (vLLM default: {flag.default!r})"
    return text


def from_namespace(
    namespace: argparse.Namespace, table: FlagTable, notes: list[str], *, model: str | None
) -> VllmParsed:
    """The vLLM flags recorded on a namespace that also holds other options (the CLI's)."""
    from .flags.values import normalise

    passed = list(getattr(namespace, _RECORD, ()))
    values: dict[str, Any] = {}
    for _, dest, _ in passed:
        values[dest] = getattr(namespace, dest)
    if "_vllm_model" in values:
        model = model or values.pop("_vllm_model")
    for flag in table:
        if flag.deprecated and flag.dest in values:
            notes = [*notes, f"vLLM warns: {flag.flag} is deprecated"]
    _check_retired_keys(values)
    values, rewrites = normalise(values)
    passed = [(o, "model" if d == "_vllm_model" else d, v) for o, d, v in passed]
    return VllmParsed(table.release, model, values, passed, notes + rewrites)


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def parse(
    argv: Sequence[str],
    release: str | None = None,
    *,
    serve: bool = True,
    read_file: Callable[[str], str] | None = None,
) -> VllmParsed:
    """Parse the arguments of ``vllm serve`` (``serve=False``: of the api_server module, which
    has no positional model) as vLLM ``release`` does (default: the newest table)."""
    from .flags.values import normalise

    table = load_table(release)
    args, notes = preprocess(argv, table, serve=serve, read_file=read_file)
    parser = build_parser(table.release)
    namespace, extra = parser.parse_known_args(args)
    if extra:
        raise VllmArgumentError(unknown_message(extra, table))
    passed = list(getattr(namespace, _RECORD, ()))
    values = {k: v for k, v in vars(namespace).items() if k != _RECORD}
    # serve.py:cmd copies the positional model_tag into --model; the api_server module reads --model.
    model = values.pop("model_tag", None) if serve else None
    values.pop("model_tag", None)
    if values.get("model") is not None:
        model = model or values["model"]
    values.pop("model", None)
    for flag in table:
        if flag.deprecated and flag.dest in values:
            notes.append(f"vLLM warns: {flag.flag} is deprecated")
    _check_retired_keys(values)
    values, rewrites = normalise(values)
    return VllmParsed(table.release, model, values, passed, notes + rewrites)


#: JSON keys of config flags that vLLM 0.30-0.34 no longer accepts (pydantic's
#: ``unexpected_keyword_argument`` inside argparse: a parse error). ``-cc '{"level": 3}'``: the
#: retired ``CompilationConfig.level`` (``mode`` / ``-O`` replace it).
RETIRED_KEYS = {"compilation_config": ("--compilation-config/-cc", "CompilationConfig", ("level",))}


def _check_retired_keys(values: dict[str, Any]) -> None:
    for dest, (option, cls, keys) in RETIRED_KEYS.items():
        value = values.get(dest)
        if not isinstance(value, dict):
            continue
        for key in keys:
            if key in value:
                raise VllmArgumentError(
                    f"vllm serve: argument {option}: 1 validation error for {cls} {key} Unexpected "
                    f"keyword argument (fix: use 'mode' or -O<n> instead of the retired {key!r})"
                )


def unknown_message(extra: Sequence[str], table: FlagTable) -> str:
    """argparse's "unrecognized arguments", with what each unknown option probably meant."""
    hints = []
    guessed = 0
    for token in extra:
        if not token.startswith("-"):
            continue
        guessed += 1
        if guessed > MAX_GUESSES:  # bounded work and a readable line (issue 29)
            break
        option = token.split("=", 1)[0]
        history = option_history(option, table.release)
        if history:
            hints.append(f"{option} is not a flag of vLLM {table.release}; {history}")
        elif guess := closest(option, table.options(), cutoff=TYPO_CUTOFF):
            hints.append(f"{option}: did you mean {guess}?")
        if option == "--task":
            hints.append(
                "--task is not a vllm serve option: for embedding, reranking or reward models use "
                "--runner pooling (and --convert embed|classify|reward to adapt a generative model)"
            )
    shown_extra = " ".join(extra[: 2 * MAX_GUESSES]) + (
        f" … ({len(extra) - 2 * MAX_GUESSES:,} more)" if len(extra) > 2 * MAX_GUESSES else ""
    )
    text = f"vllm serve {table.release}: unrecognized arguments: {shown_extra}"
    return text + ("; " + "; ".join(hints) if hints else "")
