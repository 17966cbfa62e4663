"""`resolvable COMMAND --engine vllm …`: the vLLM pack's explain, resolve, matrix, models, backends.

``main()`` routes here when ``--engine vllm`` is given; this module builds its own parser with
vLLM's flag names (``--tensor-parallel-size``, ``--block-size``, ``--attention-backend``,
``--attention-config``, ``--kv-cache-dtype``, ``--kernels`` …), so the SGLang flag set is not
touched. Invariants: the same as the SGLang commands — every user error is one ``error:`` line
and exit code 2 (raised as ``ResolvableError`` and printed by ``main``); ``--json`` output carries
a versioned ``schema``; every step chosen from candidates lists every candidate and why it was
rejected.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .._text import short, table
from ..errors import ConflictError
from ._common import UsageError, _csv_list, _Parser
from .explain import _explain_lines, _refusal_lines

COMMANDS = ("explain", "resolve", "matrix", "models", "backends")

#: Flags (dest, option strings, argparse kwargs) with vLLM's names.
_FLAGS: tuple[tuple[str, tuple[str, ...], dict[str, Any]], ...] = (
    ("tensor_parallel_size", ("--tensor-parallel-size", "-tp"), {"type": int}),
    ("decode_context_parallel_size", ("--decode-context-parallel-size", "-dcp"), {"type": int}),
    ("prefill_context_parallel_size", ("--prefill-context-parallel-size", "-pcp"), {"type": int}),
    ("attention_backend", ("--attention-backend",), {}),
    ("attention_config", ("--attention-config",), {"metavar": "JSON"}),
    ("block_size", ("--block-size",), {"type": int}),
    ("kv_cache_dtype", ("--kv-cache-dtype",), {}),
    ("dtype", ("--dtype",), {}),
    ("num_speculative_tokens", ("--num-speculative-tokens",), {"type": int}),
    ("cudagraph_mode", ("--cudagraph-mode",), {}),
    ("kernels", ("--kernels",), {"metavar": "NAME=0|1,...", "help": "override installed-kernel facts"}),
    # Engine configuration (resolvable.vllm.config; vllm-config-spec.md §3).
    ("max_model_len", ("--max-model-len",), {"type": int}),
    ("max_num_seqs", ("--max-num-seqs",), {"type": int}),
    ("max_num_batched_tokens", ("--max-num-batched-tokens",), {"type": int}),
    ("gpu_memory_utilization", ("--gpu-memory-utilization",), {"type": float}),
    ("pipeline_parallel_size", ("--pipeline-parallel-size", "-pp"), {"type": int}),
    ("data_parallel_size", ("--data-parallel-size", "-dp"), {"type": int}),
    ("distributed_executor_backend", ("--distributed-executor-backend",), {}),
    ("all2all_backend", ("--all2all-backend",), {}),
    ("speculative_config", ("--speculative-config",), {"metavar": "JSON"}),
    ("quantization", ("--quantization", "-q"), {}),
    ("optimization_level", ("--optimization-level", "-O"), {"type": int}),
    ("compilation_mode", ("--compilation-mode",), {"help": "-cc.mode: NONE, VLLM_COMPILE, …"}),
    ("max_cudagraph_capture_size", ("--max-cudagraph-capture-size",), {"type": int}),
    ("mamba_block_size", ("--mamba-block-size",), {"type": int}),
    ("performance_mode", ("--performance-mode",), {}),
    ("usage_context", ("--usage-context",), {"help": "OPENAI_API_SERVER (vllm serve) or LLM_CLASS"}),
    ("runner", ("--runner",), {}),
)
#: vLLM's ``BooleanOptionalAction`` flags whose default is None ("decided"): --x / --no-x.
_TRISTATE = (
    ("enable_chunked_prefill", "--enable-chunked-prefill"),
    ("enable_prefix_caching", "--enable-prefix-caching"),
    ("async_scheduling", "--async-scheduling"),
)
_SWITCHES = (
    ("enforce_eager", "--enforce-eager"),
    ("kv_connector", "--kv-transfer-config-set"),
    ("disable_multimodal", "--language-model-only"),
    ("enable_expert_parallel", "--enable-expert-parallel"),
    ("disable_sliding_window", "--disable-sliding-window"),
    ("mm_encoder_only", "--mm-encoder-only"),
)


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="bundled sample name, config.json, model directory, or cached hub repo id")
    p.add_argument("--engine", choices=("sglang", "vllm"), default="vllm", help="rule pack (here: vllm)")
    p.add_argument("--platform", default="detect", help="platform preset to simulate, or 'detect'")
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    for dest, options, kwargs in _FLAGS:
        p.add_argument(*options, dest=dest, default=None, **kwargs)
    for dest, option in _SWITCHES:
        p.add_argument(option, dest=dest, action="store_true", default=None)
    _add_config_inputs(p)


def _add_config_inputs(p: argparse.ArgumentParser) -> None:
    for dest, option in _TRISTATE:
        p.add_argument(option, dest=dest, action=argparse.BooleanOptionalAction, default=None)
    p.add_argument(
        "--gpus",
        type=int,
        default=None,
        metavar="N",
        help="GPUs on the node (default: the preset's, 8 for GPU presets, 1 for CPU); "
        "vLLM refuses a world size above it",
    )
    p.add_argument(
        "--vllm-version", default=None, help="vLLM release to model (0.30.0-0.34.0; default 0.33.0)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="resolvable", description="vLLM 0.33.0 rule pack (--engine vllm)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    p = sub.add_parser("explain", help="why each resolved field has its value; every candidate backend")
    _add_inputs(p)
    p.add_argument("--field", help="explain only this field")
    p.set_defaults(func=cmd_explain)
    p = sub.add_parser("resolve", help="all resolved values and the published runtime context")
    _add_inputs(p)
    p.set_defaults(func=cmd_resolve)
    p = sub.add_parser("matrix", help="models × platforms: backend per layer kind and block size")
    p.add_argument("--engine", choices=("sglang", "vllm"), default="vllm")
    p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
    p.add_argument("--platforms", help="comma-separated presets (default: the GPU and CPU presets)")
    p.add_argument(
        "--set", action="append", metavar="FLAG=VALUE", default=[], help="vLLM flag for every cell"
    )
    p.add_argument("--env", action="append", metavar="KEY=VALUE")
    p.add_argument("--format", choices=("text", "md", "json"), default="text")
    p.add_argument("--gpus", type=int, default=None, metavar="N", help="GPUs on the node")
    p.add_argument("--vllm-version", default=None, help="vLLM release to model")
    p.add_argument(
        "--fields",
        help="comma-separated resolved fields to show per cell instead of the backends, "
        "e.g. max_num_seqs,async_scheduling,cudagraph_mode",
    )
    p.set_defaults(func=cmd_matrix)
    p = sub.add_parser("models", help="the bundled model configs and their vLLM layer kinds")
    p.add_argument("--engine", choices=("sglang", "vllm"), default="vllm")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)
    p = sub.add_parser("backends", help="the vLLM backend capability table (from the candidates' checks)")
    p.add_argument("--engine", choices=("sglang", "vllm"), default="vllm")
    p.add_argument("--format", choices=("text", "md", "json"), default="md")
    p.set_defaults(func=cmd_backends)
    return parser


def wants_vllm(argv: Sequence[str]) -> bool:
    """Whether ``argv`` asks for the vLLM pack (``--engine vllm`` or ``--engine=vllm``)."""
    for i, token in enumerate(argv):
        if token == "--engine" and i + 1 < len(argv) and argv[i + 1] == "vllm":
            return True
        if token == "--engine=vllm":
            return True
    return False


def main(argv: Sequence[str]) -> int:
    """Run one vLLM command; user errors propagate as ``ResolvableError`` (printed by the caller)."""
    args = build_parser().parse_args(list(argv))
    return int(args.func(args) or 0)


# -- inputs ----------------------------------------------------------------------------------
def _env(pairs: Sequence[str] | None) -> dict[str, str]:
    from ..vllm.api import env_from_os

    env = env_from_os()
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    out = {}
    for dest, _, _ in _FLAGS:
        value = getattr(args, dest, None)
        if value is not None:
            out[dest] = value
    for dest, _ in _SWITCHES:
        if getattr(args, dest, None):
            out[dest] = True
    for dest, _ in _TRISTATE:
        if getattr(args, dest, None) is not None:
            out[dest] = getattr(args, dest)
    return out


def _resolve(
    model: str,
    platform_name: str,
    flags: dict[str, Any],
    env: dict[str, str],
    *,
    trace: bool = False,
    gpus: int | None = None,
    version: str | None = None,
):
    """Resolve, and on a refusal check its fix by resolving again (``exc.fix_check``)."""
    from ..vllm import load_model, resolve_vllm_args
    from ..vllm.config.fixes import with_checked_fix
    from ..vllm.config.parallel import with_gpus
    from ..vllm.platforms import platform

    flags = dict(flags)
    attention_config = flags.pop("attention_config", None)
    hf, plat = load_model(model), with_gpus(platform(platform_name), gpus)
    try:
        return resolve_vllm_args(
            hf, plat, env, attention_config=attention_config, trace=trace, vllm_version=version, **flags
        )
    except ConflictError as exc:
        if attention_config is None:
            raise with_checked_fix(exc, hf, plat, env, flags, vllm_version=version) from None
        raise


def _startup(
    res: Any, model: str, env: dict[str, str], flags: dict[str, Any] | None = None
) -> tuple[tuple[Any, ...], ConflictError | None]:
    """The engine-start checks (``resolvable.vllm.config.startup``): (passed, None) or ((), refusal),
    the refusal's fix checked by resolving again."""
    from ..vllm import load_model
    from ..vllm.config.fixes import with_checked_fix
    from ..vllm.config.startup import check_startup

    hf = load_model(model)
    try:
        return check_startup(res, hf, env), None
    except ConflictError as exc:
        user = {k: v for k, v in (flags or {}).items() if k != "attention_config"}
        return (), with_checked_fix(exc, hf, res.platform, env, user, vllm_version=res.release)


def _startup_lines(passed: Any, refusal: ConflictError | None) -> list[str]:
    from ..vllm.config.startup import NOT_KNOWN_OFFLINE, STARTUP_LABEL

    if refusal is None:
        lines = [
            f"{STARTUP_LABEL}: accepted by create_engine_config, and would start ({len(passed)} checks passed)"
        ]
    else:
        lines = [
            f"{STARTUP_LABEL}: accepted by create_engine_config, refused at engine start: {refusal.message}"
        ]
        if refusal.fix:
            lines.append(f"    fix: {refusal.fix}")
    lines.append("not known offline (decided on the GPU at start):")
    return lines + [f"    - {item}" for item in NOT_KNOWN_OFFLINE]


def _startup_json(passed: Any, refusal: ConflictError | None) -> dict[str, Any]:
    from ..vllm.config.startup import NOT_KNOWN_OFFLINE, STARTUP_LABEL, STARTUP_PHASE

    return {
        "phase": STARTUP_PHASE,
        "label": STARTUP_LABEL,
        "would_start": refusal is None,
        "checks_passed": [r.name for r in passed],
        "refusal": None
        if refusal is None
        else {
            "message": refusal.message,
            "rule": refusal.rule,
            "location": refusal.location,
            "fix": refusal.fix,
        },
        "not_known_offline": list(NOT_KNOWN_OFFLINE),
    }


def _header(res: Any, model: str, flags: dict[str, Any]) -> list[str]:
    from ..vllm import VLLM_VERSION

    shown = " ".join(
        f"--{k.replace('_', '-')} {v}" if v is not True else f"--{k.replace('_', '-')}"
        for k, v in flags.items()
    )
    lines = [
        f"model     {model}  [{res.arch}]",
        f"platform  {res.platform.name}: {res.platform.describe()}",
        f"flags     {shown or '(none)'}",
        f"rules     vllm {res.release or VLLM_VERSION} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
        f"node      {res.platform.device_count} × {res.platform.device_name or res.platform.name}"
        + (f", {res.platform.memory_gib:g} GiB each" if res.platform.memory_gib else "")
        + "  (--gpus N to change)",
        f"kernels   {', '.join(res['installed_kernels']) or '(none)'}  (standard install; override with --kernels)",
    ]
    # The vLLM pack dispatches on config facts, not on architecture names: the engine's
    # "no architecture-specific rule" note says nothing here.
    return lines + [f"note      {n}" for n in res.notes if "architecture-specific" not in n]


# -- commands ------------------------------------------------------------------------------
def cmd_explain(args: argparse.Namespace) -> int:
    flags = _flags(args)
    env = _env(args.env)
    try:
        res = _resolve(
            args.model, args.platform, flags, env, trace=True, gpus=args.gpus, version=args.vllm_version
        )
    except ConflictError as exc:
        if not args.json:
            print("\n".join(_refusal_lines(exc)))
        raise
    passed, refusal = _startup(res, args.model, env, flags)
    fields = [args.field] if args.field else _in_pipeline_order(res)
    explained = [res.explain(f) for f in fields]
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.explain/1",
                    "engine": "vllm",
                    "model": args.model,
                    "arch": res.arch,
                    "platform": res.platform.to_dict(),
                    "user_args": dict(res.user),
                    "installed_kernels": res["installed_kernels"],
                    "notes": list(res.notes),
                    "fingerprint": res.fingerprint(),
                    "release": res.release,
                    "fields": {e.field: e.to_dict() for e in explained},
                    "startup": _startup_json(passed, refusal),
                },
                indent=2,
                default=repr,
            )
        )
        return 2 if refusal is not None else 0
    print("\n".join(_header(res, args.model, flags)))
    for exp in explained:
        if exp.steps or args.field:
            print()
            print("\n".join(_explain_lines(exp) + _precluded(exp, res)))
    untouched = [f"{e.field}={e.value!r}" for e in explained if not e.steps and not args.field]
    if untouched:
        print(f"\nfrom your flags, untouched by any rule: {', '.join(untouched)}")
    print()
    print("\n".join(_startup_lines(passed, refusal)))
    print(
        "\nlegend: ✓ applied/chosen  ! forced over your flag  ✗ blocked / rejected  ~ shadowed  · valid, lower priority"
    )
    return 2 if refusal is not None else 0


def _in_pipeline_order(res: Any) -> list[str]:
    """The changed fields in the order vLLM decides them (first declaration first)."""
    first: dict[str, int] = {}
    for decl in res.declarations:
        for field in (w.field for w in decl.writes):
            first.setdefault(field, decl.seq)
    changed = [f for f in res.changed() if f != "installed_kernels"]
    return sorted(changed, key=lambda f: first.get(f, 1 << 30))


def _precluded(exp: Any, res: Any) -> list[str]:
    """vLLM's warning when --block-size alone removed higher-priority backends (platforms/cuda.py)."""
    out = []
    for step in exp.steps:
        choice = getattr(step, "choice", None)
        if choice is None or "block_size" not in res.user:
            continue
        names = choice.precluded_only_by("block_size not supported")
        if names:
            out.append(
                f"       vLLM warns: --block-size {res.user['block_size']} precluded higher-priority backend(s) "
                f"{', '.join(names)}; using {choice.chosen} instead (remove --block-size to auto-select)"
            )
    return out


def cmd_resolve(args: argparse.Namespace) -> int:
    from ..vllm.config.report import engine_config

    flags = _flags(args)
    env = _env(args.env)
    res = _resolve(args.model, args.platform, flags, env, gpus=args.gpus, version=args.vllm_version)
    passed, refusal = _startup(res, args.model, env, flags)
    ctx = res.publish()
    if args.json:
        data = res.to_dict()
        print(
            json.dumps(
                {
                    "schema": "resolvable.resolve/1",
                    "engine": "vllm",
                    "model": args.model,
                    "arch": res.arch,
                    "platform": data["platform"],
                    "user_args": data["user"],
                    "values": data["values"],
                    "context": ctx.to_dict(),
                    "fingerprint": res.fingerprint(),
                    "notes": data["notes"],
                    "declarations": data["declarations"],
                    "release": res.release,
                    "engine_config": engine_config(res),
                    "startup": _startup_json(passed, refusal),
                },
                indent=2,
            )
        )
        return 0
    print("\n".join(_header(res, args.model, flags)))
    print()
    rows = [
        [path, short(ctx.leaf(path), 40), res.decided_by(field)[0]]
        for field, path in sorted(res.leaves.items(), key=lambda kv: kv[1])
    ]
    print(table(["published leaf", "value", "decided by"], rows))
    print()
    print("\n".join(_startup_lines(passed, refusal)))
    return 0


_MATRIX_PLATFORMS = (
    "t4",
    "a100",
    "l40s",
    "h100",
    "b200",
    "b300",
    "thor",
    "rtx5090",
    "dgx-spark",
    "mi300x",
    "mi355x",
    "xpu",
    "cpu",
    "cpu-amx",
)


def _parse_set(pairs: Sequence[str]) -> dict[str, Any]:
    parser = _Parser(prog="--set", add_help=False)
    for dest, options, kwargs in _FLAGS:
        parser.add_argument(*options, dest=dest, default=None, **kwargs)
    for dest, option in _SWITCHES:
        parser.add_argument(option, dest=dest, action="store_true", default=None)
    argv: list[str] = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        flag = "--" + key.lstrip("-").replace("_", "-")
        argv += [flag, value] if sep else [flag]
    namespace, extra = parser.parse_known_args(argv)
    if extra:
        raise UsageError(f"--set: unknown vLLM flag {extra[0]}")
    return _flags(namespace)


def matrix_cells(
    models: Sequence[str],
    platforms: Sequence[str],
    flags: dict[str, Any],
    env: dict[str, str],
    *,
    gpus: int | None = None,
    version: str | None = None,
    fields: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """One cell per (model, platform): the backend per layer kind and the block size, or the refusal."""
    from ..vllm import KIND_FIELDS

    cells = []
    for model in models:
        for name in platforms:
            try:
                res = _resolve(model, name, flags, env, gpus=gpus, version=version)
            except ConflictError as exc:
                cells.append({"model": model, "platform": name, "refused": exc.message})
                continue
            backends = {k: res[f] for k, f in KIND_FIELDS.items() if res[f] is not None}
            cell = {"model": model, "platform": name, "backends": backends, "block_size": res["block_size"]}
            if fields:
                cell["values"] = {f: res[f] for f in fields}
            cells.append(cell)
    return cells


def _cell_text(cell: dict[str, Any]) -> str:
    if "refused" in cell:
        return "refused"
    if "values" in cell:
        return " ".join(f"{v}" if not isinstance(v, list) else f"[{len(v)}]" for v in cell["values"].values())
    names = list(dict.fromkeys(cell["backends"].values()))
    return "/".join(names) + f" bs{cell['block_size']}"


def cmd_matrix(args: argparse.Namespace) -> int:
    from ..vllm import catalog
    from ..vllm.platforms import platform

    models = _csv_list(args.models) or list(catalog())
    platforms = _csv_list(args.platforms) or list(_MATRIX_PLATFORMS)
    for name in platforms:
        platform(name)
    from ..vllm import VllmArgs

    fields = _csv_list(args.fields) or []
    known = set(VllmArgs.__dataclass_fields__)
    for field in fields:
        if field not in known:
            raise UsageError(f"--fields: {field!r} is not a vLLM field; e.g. max_num_seqs, async_scheduling")
    cells = matrix_cells(
        models,
        platforms,
        _parse_set(args.set),
        _env(args.env),
        gpus=args.gpus,
        version=args.vllm_version,
        fields=fields,
    )
    if args.format == "json":
        print(json.dumps({"schema": "resolvable.vllm-matrix/1", "cells": cells}, indent=2))
        return 0
    by = {(c["model"], c["platform"]): _cell_text(c) for c in cells}
    rows = [[m, *(by[(m, p)] for p in platforms)] for m in models]
    if args.format == "md":
        lines = ["| model | " + " | ".join(platforms) + " |", "|" + "---|" * (len(platforms) + 1)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        print("\n".join(lines))
    else:
        print(table(["model", *platforms], rows))
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from ..vllm import catalog, load_model
    from ..vllm.layers import kinds_of, use_mla

    rows, data = [], {}
    for name, entry in catalog().items():
        hf = load_model(name)
        mla = use_mla(hf, {})
        try:
            kinds = kinds_of(hf, mla)
        except ConflictError:
            kinds = ["(not modelled)"]
        data[name] = {**entry, "architecture": hf.architecture, "use_mla": mla, "layer_kinds": kinds}
        rows.append([name, hf.architecture, "MLA" if mla else "MHA", ", ".join(kinds)])
    if args.json:
        print(json.dumps({"schema": "resolvable.models/1", "engine": "vllm", "models": data}, indent=2))
        return 0
    print(table(["model", "architecture", "attention", "vLLM layer kinds"], rows))
    return 0


def cmd_backends(args: argparse.Namespace) -> int:
    from ..vllm.capabilities import COLUMNS, capability_markdown, capability_table

    rows = capability_table()
    if args.format == "json":
        print(json.dumps({"schema": "resolvable.vllm-backends/1", "backends": rows}, indent=2))
    elif args.format == "md":
        sys.stdout.write(capability_markdown(rows))
    else:
        keep = ("backend", "platforms", "MLA", "sparse", "block sizes", "compute capability", "sinks")
        print(table(list(keep), [[short(r[c], 40) for c in keep] for r in rows]))
        print(f"\n({len(COLUMNS)} columns with --format md or json)")
    return 0
