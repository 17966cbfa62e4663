"""Agreement of the vLLM pack with each release's real attention selector (the oracle).

Usage (repository venv; the oracle venvs are separate, see README.md)::

    python tools/agreement_vllm/compare.py --vllm-version 0.33.0 --split dev -n 1500
    python tools/agreement_vllm/compare.py --vllm-version 0.34.0 --split heldout -n 1500

Cases come from ``generate.py`` (kind ``selector``): a bundled model config with mutations × a
CUDA device × an install variant × an environment × 0–5 selector flags. For every case the pack
resolves (``resolve_vllm_args``, with ``vllm_version`` when the pack has it); the same layer
arguments go to ``oracle.py`` in the release's venv (one process per install variant), which runs
vLLM's own selector. Compared per case: the backend of every layer kind, the block size, the
FlashAttention version of FLASH_ATTN layers and the MLA prefill backend; a refusal must be a
refusal on both sides. Oracle answers are cached in ``/work/oracle-vllm/cache-selector-<V>.jsonl``
(key: release, oracle revision, install, device, env, the oracle case). Reports go to
``reports/selector-<V>-<split>.{md,json}``. Not collected by pytest; nothing here is imported by
the package.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate

from resolvable import Platform
from resolvable.vllm import KIND_FIELDS, resolve_vllm_args
from resolvable.vllm.layers import layer_queries

HERE = Path(__file__).resolve().parent
ORACLE_ROOT = Path(os.environ.get("VLLM_ORACLE_ROOT", "/work/oracle-vllm"))
RELEASES = ("0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")
ORACLE_REVISION = 3  # keep equal to oracle.ORACLE_REVISION (no vLLM import here)


#: the pack gets the case as argv through its own CLI parser (``--via-api``: as keyword arguments)
VIA_CLI = True


def _cli():
    """``(parse, resolution_kwargs)`` of the pack's vLLM CLI surface, or None where it has none."""
    try:
        from resolvable.vllm.cli_args import parse, resolution_kwargs
    except ImportError:
        return None
    return parse, resolution_kwargs


def pack_releases() -> bool:
    """Whether this pack's ``resolve_vllm_args`` takes ``vllm_version`` (per-release answers)."""
    return "vllm_version" in inspect.signature(resolve_vllm_args).parameters


def platform_for(name: str) -> Platform:
    if name.startswith("sm"):
        cc = (int(name[2:-1]), int(name[-1]))
        base = Platform.preset("b200" if cc[0] >= 10 else "h100")
        return base.replace(name=name, capability=cc, device_name=f"NVIDIA sm{name[2:]}")
    from stand_ins import platform  # the harness's stand-ins (dgx-spark), then the presets

    return platform(name)


def oracle_platform(p: Platform) -> dict:
    out = {
        "vendor": "cuda",
        "cc": list(p.capability or (0, 0)),
        "device_name": p.device_name,
        "memory_gib": p.memory_gib,
        "device_count": p.device_count,
    }
    if p.vendor in ("hip", "cpu"):  # vLLM's own RocmPlatform / CpuPlatform (oracle.py)
        # fake_revision (in the cache key): 2 = the CPU's own default block size (128), 3 = the
        # MLA prefill backend by its enum member (CPU, not the class's CPU_SDPA_MLA)
        out.update(vendor=p.vendor, gcn_arch=p.gcn_arch, amx=bool(p.cpu_amx), fake_revision=3)
    return out


def oracle_family(platform: dict) -> dict:
    """One oracle process per family: every CUDA device in one, a ROCm GCN arch (read when
    ``vllm.platforms.rocm`` is imported) or a CPU ISA in its own."""
    if platform["vendor"] == "hip":
        return {"vendor": "hip", "gcn_arch": platform["gcn_arch"]}
    if platform["vendor"] == "cpu":
        return {"vendor": "cpu", "amx": platform["amx"]}
    return {"vendor": "cuda"}


def oracle_case(
    case_id: str, hf, res, flags: dict, *, refused: bool = False, overrides: dict | None = None, platform=None
) -> dict:
    """The oracle's input for one case: the layer arguments the pack derives (``overrides``
    replaces resolved values, ``platform`` the resolution's device, for refused cases)."""
    args = _View(res)
    args.update(overrides or {})
    resolution, res = res, args
    kernels = frozenset(res["installed_kernels"])
    qs = layer_queries(
        hf,
        args,
        platform or resolution.platform,
        {},
        user_block_size=flags.get("block_size"),
        kernels=kernels,
    )
    t = hf.text_config
    heads = int(t.get("num_attention_heads") or 1)
    mla = bool(res["use_mla"])
    keys = (
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
        "kv_lora_rank",
        "index_topk",
        "attn_logit_softcapping",
    )
    text = {k: t[k] for k in keys if t.get(k) is not None}
    text["model_type"] = t.get("model_type")
    layers = []
    for q in qs:
        if q.kind == "indexer":
            continue  # a fixed backend, not selected
        layers.append(
            {
                "kind": q.kind,
                "head_size": q.head_size,
                "dtype": q.dtype,
                "kv_cache_dtype": q.kv_cache_dtype,
                "use_mla": q.use_mla,
                "has_sink": q.has_sink,
                "use_sparse": q.use_sparse,
                "use_mm_prefix": q.use_mm_prefix,
                "attn_type": q.attn_type,
                "num_heads": q.num_heads if q.use_mla else None,
                "has_sliding_window": q.has_sliding_window,
            }
        )
    return {
        "id": case_id,
        "tp": int(flags.get("tensor_parallel_size", 1)),
        "kv_cache_dtype": res["kv_cache_dtype"] if layers else flags.get("kv_cache_dtype", "auto"),
        "block_size": flags.get("block_size"),
        # the pack's model overrides (verify_and_update_config) decide the selected backend;
        # the oracle runs only the selector, so it gets the backend after those overrides
        "attention": {
            "backend": flags.get("attention_backend") if refused or not layers else res["attention_backend"],
            "flash_attn_version": _override_fa_version(resolution),
        },
        "model": {
            "hf_text": text,
            "num_heads": heads,
            "num_kv_heads": int(t.get("num_key_value_heads") or heads),
            "head_size": qs[0].head_size if qs else 0,
            "use_mla": mla,
            "mm_prefix": any(q.use_mm_prefix for q in qs),
            "dtype": res["dtype"],
            # ModelConfig.attn_type (0.26+'s ROCm list reads it for every layer); only set for an
            # encoder-decoder model, so the other cases keep their cache keys
            **({"attn_type": "encoder_decoder"} if any(q.is_encoder_decoder for q in qs) else {}),
        },
        "layers": layers,
    }


def _override_fa_version(res) -> int | None:
    """The FA version a model override put into attention_config (Gemma4: FA4 for every layer)."""
    for step in res.explain("flash_attn_version").steps:
        if step.stage == "model_overrides" and step.outcome == "applied":
            return step.value
    return None


class _View(dict):
    """The resolved values as the attribute view layer_queries expects."""

    def __init__(self, res) -> None:
        super().__init__(res)
        self.__dict__ = self


#: vLLM's --dtype spellings (config/model.py : _STR_DTYPE_TO_TORCH_DTYPE)
DTYPE_SPELLINGS = {"half": "float16", "float": "float32"}


def pack_side(case: dict, release: str) -> tuple[dict, dict | None]:
    """(expected answer, oracle case or None). Expected: backends/block size/…, or error/crash."""
    from resolvable.errors import ConflictError

    hf = case["config"]
    platform = platform_for(case["platform"])
    flags = dict(case["flags"])
    if VIA_CLI and _cli() is not None:
        parse, resolution_kwargs = _cli()
        try:  # the pack's own `vllm serve` parser, as a pasted command reaches the rules
            flags = resolution_kwargs(parse(["MODEL", *case["argv"]], release))
        except ValueError as exc:
            return {"error": f"{type(exc).__name__}: {str(exc)[:300]}", "input_error": True}, None
    if case["install"]:
        flags["kernels"] = case["install"]
    extra = {"vllm_version": release} if pack_releases() else {}
    env = case["env"]
    try:
        res = resolve_vllm_args(hf, platform, env, **extra, **flags)
    except ConflictError as exc:
        # whether an engine-configuration rule refused is read before the message is cut (a long
        # message loses its "[refused by … at resolvable/vllm/config/…]" tail to the 300 chars)
        # (the environment check, vLLM's start-up refusal of a retired variable, is one as well)
        config_stage = _config_stage_text(str(exc)) or exc.rule == "validate_environ"
        expected = {"error": str(exc)[:300], "config_stage": config_stage}
        # the oracle still needs the layer arguments the user's flags give: resolve without the
        # flags that can make selection fail (on a device where some backend fits, B200, if none
        # does here), then put the user's dtype and KV-cache dtype back (vLLM's spellings)
        drop = ("attention_backend", "kv_cache_dtype", "dtype", "block_size")
        sub = {k: v for k, v in flags.items() if k not in drop}
        res = None
        later: list[str] = []
        for device, environ in (
            (platform, env),
            (Platform.preset("b200"), env),
            (Platform.preset("b200"), {}),
        ):
            try:
                res = resolve_vllm_args(hf, device, environ, **extra, **sub)
                break
            except ValueError as again:
                later.append(str(again))
        if res is None:
            if not config_stage and any(_config_stage_text(m) for m in later):
                # the selection refusal came first here, but an engine-configuration rule refuses
                # the same flags as soon as selection is out of the way (world size, parallel
                # layout …): vLLM's create_engine_config refuses before any backend is selected,
                # so the case is outside this oracle (the config harness measures it)
                first = next(m for m in later if _config_stage_text(m))
                expected = {"error": first[:300], "config_stage": True, "selection_refusal": str(exc)[:300]}
            return expected, None
        overrides = {}
        dtype = DTYPE_SPELLINGS.get(str(flags.get("dtype", "auto")), flags.get("dtype", "auto"))
        if dtype != "auto":
            overrides["dtype"] = dtype
        elif platform.vendor == "cuda" and tuple(platform.capability) < (8, 0) and res["dtype"] == "bfloat16":
            overrides["dtype"] = "float16"
        if flags.get("kv_cache_dtype") not in (None, "auto"):
            overrides["kv_cache_dtype"] = flags["kv_cache_dtype"]
        ocase = oracle_case(
            case["id"], _HF(hf, flags), res, case["flags"], refused=True, overrides=overrides, platform=platform
        )
        return expected, ocase
    except ValueError as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}", "input_error": True}, None
    except Exception as exc:
        return {"crash": f"{type(exc).__name__}: {exc}"[:300]}, None
    expected = {
        "backends": {q: res[f] for q, f in KIND_FIELDS.items() if res[f] is not None and q != "indexer"},
        "block_size": res["block_size"],
        "flash_attn_version": res["flash_attn_version"],
        "mla_prefill_backend": res["mla_prefill_backend"],
    }
    return expected, oracle_case(case["id"], _HF(hf, flags), res, case["flags"])


def _config_stage_text(message: str) -> bool:
    """Whether a refusal names an engine-configuration rule (``[refused by … at resolvable/vllm/config/…]``)."""
    return "resolvable/vllm/config/" in message


def _HF(config: dict, flags: dict | None = None):
    """The model config the pack's rules read: config.json with transformers' attribute map and
    the user's ``--hf-overrides`` applied (as ``resolve_vllm_args`` does before any rule), so the
    oracle's layer arguments (sliding window, head size …) are those of the overridden model."""
    from resolvable._hfconfig import HFConfig
    from resolvable.vllm.config.hf_overrides import apply_attribute_map, apply_hf_overrides

    hf = apply_attribute_map(HFConfig(config))
    if (flags or {}).get("hf_overrides"):
        hf = apply_hf_overrides(hf, flags["hf_overrides"])
    return hf


def _cache_key(release: str, install, platform: dict, env: dict, ocase: dict) -> str:
    body = dict(ocase, id=None)
    text = json.dumps([release, ORACLE_REVISION, install, platform, env, body], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()


def run_oracle(release: str, groups: dict, workers: int, isolated: bool = False) -> dict[str, dict]:
    """groups: install -> list of (key, platform, env, ocase). Cached by key. ``isolated``: one
    process per (install, device, env) group, cached apart (checks the shared-process shortcut)."""
    suffix = "-isolated" if isolated else ""
    cache_path = ORACLE_ROOT / f"cache-selector-{release}{suffix}.jsonl"
    cache: dict[str, dict] = {}
    if cache_path.exists():
        for line in cache_path.read_text().splitlines():
            try:  # two runs of one release may append at once: skip a torn line
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            cache[row["key"]] = row["answer"]
    python = str(ORACLE_ROOT / f"v{release}" / "bin" / "python")
    results: dict[str, dict] = {}
    todo: dict = {}
    for install, items in groups.items():
        for key, platform, env, ocase in items:
            if key in cache:
                results[ocase["id"]] = cache[key]
            else:
                todo.setdefault(install, []).append((key, platform, env, ocase))

    def one(install, items):
        by_group: dict[str, dict] = {}
        keys = {}
        for key, platform, env, ocase in items:
            gk = json.dumps([platform, env], sort_keys=True)
            by_group.setdefault(gk, {"platform": platform, "env": env, "cases": []})["cases"].append(ocase)
            keys[ocase["id"]] = key
        family = oracle_family(items[0][1])
        kernels = sorted(_kernels_for(install)) if family["vendor"] == "cuda" else []
        payload = {"kernels": kernels, "family": family, "groups": list(by_group.values())}
        proc = subprocess.run(
            [python, str(HERE / "oracle.py")],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=5400,
        )
        rows = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-3000:])
        return rows, keys

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        units = []
        for install, items in todo.items():
            if not isolated:
                units.append((install, items))
                continue
            split: dict[str, list] = defaultdict(list)
            for item in items:
                split[json.dumps([item[1], item[2]], sort_keys=True)].append(item)
            units += [(install, part) for part in split.values()]
        futures = [pool.submit(one, install, items) for install, items in units]
        with cache_path.open("a", buffering=1) as fh:
            for fut in futures:
                rows, keys = fut.result()
                for row in rows:
                    answer = {k: v for k, v in row.items() if k != "id"}
                    results[row["id"]] = answer
                    fh.write(json.dumps({"key": keys[row["id"]], "answer": answer}) + "\n")
    return results


def _kernels_for(install: str | None) -> set[str]:
    from resolvable.vllm.kernels import parse_overrides, standard_install

    kernels = set(standard_install(Platform.preset("h100")))
    for name, on in parse_overrides(install).items():
        (kernels.add if on else kernels.discard)(name)
    return kernels


def classify(exp: dict, got: dict | None) -> list[tuple]:
    if got is None:
        if exp.get("config_stage"):
            # refused by an engine-configuration rule whatever the selection flags (no oracle
            # case could be built): outside this oracle, as below
            return [("config_stage", exp["error"], "not run")]
        return [("oracle_missing", None, None)]
    if "crash" in exp:
        return [("pack_crash", exp["crash"], None)]
    if "error" in exp or "error" in got:
        if ("error" in exp) != ("error" in got):
            if exp.get("config_stage"):
                # Refused by an engine-configuration rule (create_engine_config, vllm/config/):
                # a stage this oracle (the selector alone) never runs; tools/agreement_vllm_config
                # measures it. Counted apart, never as agreement.
                return [("config_stage", exp["error"], "accepted")]
            return [("refusal", exp.get("error", "accepted"), got.get("error", "accepted"))]
        return []
    diffs = []
    if exp["backends"] != got["backends"]:
        diffs.append(("backends", exp["backends"], got["backends"]))
    if exp["block_size"] != got.get("block_size"):
        diffs.append(("block_size", exp["block_size"], got.get("block_size")))
    if got.get("flash_attn_version") is not None and exp["flash_attn_version"] != got["flash_attn_version"]:
        diffs.append(("flash_attn_version", exp["flash_attn_version"], got["flash_attn_version"]))
    if got.get("mla_prefill_backend") and exp["mla_prefill_backend"] != got["mla_prefill_backend"]:
        diffs.append(("mla_prefill_backend", exp["mla_prefill_backend"], got["mla_prefill_backend"]))
    return diffs


def _reason(msg: str) -> str:
    """The pack's reasons in a refusal, without the layer details (groups misses by cause)."""
    import re

    head = "selected backend" if msg.startswith("Selected backend") else "no valid backend"
    found = re.findall(r"'([^']+)'|\b([a-z_]+ not supported)", msg.split("Reason", 1)[-1])
    reasons = sorted({x or y for x, y in found if (x or y) and "not supported" in (x or y)})
    dtype = re.search(r"dtype=(half|float)\b", msg)
    tail = f" (dtype={dtype.group(1)})" if dtype else ""
    return f"{head}: {', '.join(reasons[:4]) or msg[:60]}{tail}"


def cause(diffs: list[tuple]) -> str:
    kind, a, b = diffs[0]
    if kind == "oracle_missing":
        return f"not measured: {a}"
    if kind == "refusal":
        if a == "accepted":
            return f"oracle refuses, pack accepts: {str(b).split(':')[0]}"
        return "pack refuses, oracle accepts: " + _reason(str(a))
    if kind == "backends":
        keys = sorted(set(a) | set(b))
        parts = [f"{k}: pack {a.get(k)} vs vllm {b.get(k)}" for k in keys if a.get(k) != b.get(k)]
        return "backend " + "; ".join(parts)
    return f"{kind}: pack {a} vs vllm {b}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-version", default="0.33.0", choices=RELEASES)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--kind", choices=("selector", "operators"), default="selector")
    parser.add_argument("--seed", type=int)
    parser.add_argument("-n", type=int, default=1500)
    parser.add_argument("--workers", type=int, default=2, help="oracle processes at a time")
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--out", default=str(HERE / "reports"))
    parser.add_argument("--via-api", action="store_true", help="flags as keyword arguments, not argv")
    parser.add_argument("--isolated", action="store_true", help="one oracle process per device/env group")
    args = parser.parse_args()
    release = args.vllm_version
    global VIA_CLI
    VIA_CLI = not args.via_api
    seed = generate.seed_for(args.split, args.seed, args.kind)
    cases = generate.generate(args.kind, seed, args.n)
    t0 = time.time()
    expected: dict[str, dict] = {}
    groups: dict = defaultdict(list)
    byid = {c["id"]: c for c in cases}
    asked: set[str] = set()
    for case in cases:
        exp, ocase = pack_side(case, release)
        expected[case["id"]] = exp
        if ocase is not None:
            asked.add(case["id"])
            platform = oracle_platform(platform_for(case["platform"]))
            key = _cache_key(release, case["install"], platform, case["env"], ocase)
            unit = case["install"] if platform["vendor"] == "cuda" else f"{case['install']}|{oracle_family(platform)}"
            groups[unit].append((key, platform, case["env"], ocase))
    t_pack = time.time() - t0
    results = run_oracle(release, groups, args.workers, args.isolated)
    rows = []
    counts = Counter()
    for cid, exp in expected.items():
        if "input_error" in exp and exp["error"].startswith("VllmArgumentError"):
            # the pack's `vllm serve` parser refused the command line: vLLM's parser is run by the
            # config oracle (tools/agreement_vllm_config, which compares parse errors), never by this one
            diffs = [("config_stage", exp["error"], "not run (parse error)")]
        elif "input_error" in exp:
            diffs = [("pack_input_error", exp["error"], None)]
        else:
            diffs = classify(exp, results.get(cid))
        if diffs and diffs[0][0] == "oracle_missing":
            # no answer from vLLM: not measured (never agreement), with the reason
            why = (
                "the oracle process gave no answer"
                if cid in asked
                else "the pack refuses on every device tried, no layer arguments to ask vLLM with: "
                + _reason(str(exp.get("error", "")))
            )
            diffs = [("oracle_missing", why, None)]
        c = byid[cid]
        row = {
            "id": cid,
            "agree": not diffs,
            "model": c["model"],
            "mutations": c["mutations"],
            "platform": c["platform"],
            "install": c["install"],
            "env": c["env"],
            "argv": c["argv"],
            "pack": exp,
            "oracle": results.get(cid),
            "diffs": diffs,
            "cause": cause(diffs) if diffs else None,
        }
        rows.append(row)
        counts[
            "crash"
            if "crash" in exp
            else (diffs[0][0] if diffs and diffs[0][0] in ("oracle_missing", "config_stage") else "")
        ] += 1
    n = len(rows)
    agree = sum(r["agree"] for r in rows)
    crashes = counts["crash"]
    missing = counts["oracle_missing"]
    by_cause = Counter(r["cause"] for r in rows if not r["agree"])
    measured = n - counts["config_stage"] - missing
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = (
        f"selector-{release}-{args.split}"
        if args.kind == "selector"
        else f"selector-{args.kind}-{release}-{args.split}"
    )
    if args.split == "heldout" and args.seed is not None:
        stem += f"-seed{seed}"  # a fresh held-out seed never overwrites an earlier one's report
    pack_rel = release if pack_releases() else "0.33.0 (the pack has no vllm_version yet)"
    cmd = (
        f"python tools/agreement_vllm/compare.py --vllm-version {release} --split {args.split}"
        + (f" --kind {args.kind}" if args.kind != "selector" else "")
        + (f" --seed {args.seed}" if args.seed is not None else "")
        + f" -n {args.n}"
    )
    lines = [
        f"# vLLM {release} selector agreement, {args.split} split (seed {seed})",
        "",
        f"Command: `{cmd}`  ",
        f"Pack answers for: {pack_rel}; input: {'argv through the pack CLI parser' if VIA_CLI and _cli() else 'keyword arguments'}  ",
        f"Cases: {n}; agree: {agree} ({100.0 * agree / max(1, n):.2f}%); pack crashes: {crashes}; "
        f"oracle missing: {missing}; pack side {t_pack:.1f}s  ",
        f"Refused by an engine-configuration rule before selection (outside this oracle): "
        f"{counts['config_stage']}; agreement on the other cases: {agree}/{n - counts['config_stage']} "
        f"({100.0 * agree / max(1, n - counts['config_stage']):.2f}%)  ",
        f"Not measured (vLLM gave no answer; reasons below, never counted as agreement): {missing}; "
        f"agreement on the measured cases: {agree}/{measured} ({100.0 * agree / max(1, measured):.2f}%)",
        "",
        "## Disagreements by cause (count, one repro)",
        "",
    ]
    for text, k in by_cause.most_common():
        ex = next(r for r in rows if r["cause"] == text)
        lines.append(f"- **{k}** × {text}  ")
        if args.split == "heldout":
            continue  # held-out cases are never shown (nobody fixing may look at them)
        lines.append(
            f"  repro: `{ex['id']}` model {ex['model']} {ex['mutations']} on {ex['platform']}, "
            f"install {ex['install']}, env {ex['env']}, flags `{' '.join(ex['argv'])}`"
        )
    tmp = out / f".{stem}.md.tmp"
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(out / f"{stem}.md")
    tmp = out / f".{stem}.json.tmp"
    summary = {
        "release": release,
        "split": args.split,
        "seed": seed,
        "n": n,
        "agree": agree,
        "crashes": crashes,
        "config_stage": counts["config_stage"],
        "not_measured": missing,
    }
    misses = [r for r in rows if not r["agree"]]
    detail = {"causes": dict(by_cause)} if args.split == "heldout" else {"misses": misses}
    tmp.write_text(json.dumps(dict(summary, **detail), indent=1))
    tmp.replace(out / f"{stem}.json")
    print("\n".join(lines[:7]))
    for text, k in by_cause.most_common(args.show):
        print(f"  {k:5d}  {text[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
