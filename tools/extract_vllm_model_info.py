"""Extract, from one vLLM release, what its model registry says about every architecture.

Run with a release's oracle interpreter (``/work/oracle-vllm/v<V>/bin/python``, see
``tools/agreement_vllm/README.md``)::

    /work/oracle-vllm/v0.34.0/bin/python tools/extract_vllm_model_info.py > /tmp/info-0.34.0.json

Per architecture of ``vllm/model_executor/models/registry.py : ModelRegistry`` it imports the model
class (``_LazyRegisteredModel.inspect_model_cls``, inline on the faked CUDA device of the config
oracle) and writes ``{"release", "archs": {arch: {"pp", "generate", "pooling", "lora"}}, "failed"}``:
``supports_pp`` (``SupportsPP``), ``is_text_generation_model``, ``is_pooling_model`` and
``supports_lora`` (``SupportsLoRA``, what ``lora_model_runner_mixin.load_lora_model`` checks).
Architectures whose module does not import on this CPU build are listed under ``failed``.
The pack's table (``resolvable/vllm/config/model_info.json``) is written from these files, oldest
release first, the newest release that imports a class winning (repository venv)::

    python tools/extract_vllm_model_info.py --merge /tmp/info-0.3{0,1,2,3,4}.0.json \
        > src/resolvable/vllm/config/model_info.json

The history across releases (issue 32; ``resolvable/vllm/config/model_registry_history.json``:
which classes each release registers, where ``supports_pp``/``supports_lora`` differ, each
release's ``_PREVIOUSLY_SUPPORTED_MODELS``) from every release's extraction, oldest first, with
what the oracle's transformers exports under those names (``_try_resolve_transformers``)::

    V="0.20.0 0.20.1 0.20.2 0.21.0 … 0.34.0"
    for v in $V; do /work/oracle-vllm/v$v/bin/python tools/extract_vllm_model_info.py > /tmp/info-$v.json; done
    /work/oracle-vllm/v0.34.0/bin/python tools/extract_vllm_model_info.py --transformers /tmp/info-*.json \
        > /tmp/transformers.json
    python tools/extract_vllm_model_info.py --history --transformers-file /tmp/transformers.json --wheels /work/wheels \
        $(for v in $V; do echo /tmp/info-$v.json; done) > src/resolvable/vllm/config/model_registry_history.json

``--wheels DIR`` (after ``--history``) also records, per release, the sha256 of the wheel's
``model_executor/models/registry.py`` (``registry_sha256``), so that
tests/vllm/test_model_registry_history.py checks the history against the wheels where they are.
``registered_in_source`` is the membership read from that file alone (no import):
the keys of the ``_VLLM_MODELS`` dict literal and of the dicts it unpacks.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "agreement_vllm_config"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "agreement_vllm"))


#: the standard install of the config oracle (compare._kernels_for(None))
KERNELS = (
    "cute_dsl",
    "fa2",
    "fa3",
    "fa4",
    "flashinfer",
    "flashinfer_cubin",
    "flashinfer_sparse_mla",
    "flashmla",
    "nvidia_artifactory",
    "tokenspeed_mla",
)


def main() -> int:
    import oracle
    import oracle_worker

    oracle.setup(set(KERNELS))
    oracle_worker._inline_inspection()
    oracle_worker._stub_custom_ops()
    oracle._stub("vllm._cpu_ops", permissive=True)
    oracle._reset(
        {
            "vendor": "cuda",
            "cc": [9, 0],
            "device_name": "NVIDIA H100 80GB HBM3",
            "memory_gib": 80,
            "device_count": 8,
        },
        {},
    )
    from vllm.model_executor.models.interfaces import supports_lora
    from vllm.model_executor.models.registry import ModelRegistry

    import vllm

    archs: dict[str, dict] = {}
    failed: dict[str, str] = {}
    for arch in sorted(ModelRegistry.models):
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                model = ModelRegistry.models[arch]
                info = model.inspect_model_cls()
                try:
                    lora = bool(supports_lora(model.load_model_cls()))
                except Exception:
                    lora = None
        except Exception as exc:  # an import this CPU build lacks
            failed[arch] = f"{type(exc).__name__}: {str(exc)[:120]}"
            continue
        archs[arch] = {
            "pp": bool(info.supports_pp),
            "generate": bool(info.is_text_generation_model),
            "pooling": bool(info.is_pooling_model),
            "lora": lora,
            # not in the merged table: the pack keeps the few classes as a release-ranged constant
            "mamba_prefix_caching": bool(getattr(info, "supports_mamba_prefix_caching", False)),
            # likewise: IsHybrid classes that are not HasInnerState (0.24's V2 check of align mode)
            "hybrid": bool(getattr(info, "is_hybrid", False)),
            "inner_state": bool(getattr(info, "has_inner_state", False)),
        }
    from vllm.model_executor.models import registry as _registry

    previously = dict(getattr(_registry, "_PREVIOUSLY_SUPPORTED_MODELS", {}))
    json.dump(
        {"release": vllm.__version__, "archs": archs, "failed": failed, "previously": previously},
        sys.stdout,
        indent=0,
        sort_keys=True,
    )
    return 0


DOC = (
    "Generated by tools/extract_vllm_model_info.py --merge from the vLLM {first}-{last} wheels "
    "(model_executor/models/registry.py : ModelRegistry, _ModelInfo.from_model_cls). Per architecture: "
    "G is_text_generation_model, P is_pooling_model, p supports_pp (SupportsPP), L supports_lora "
    "(SupportsLoRA). The newest release that imports the class wins."
)


def merge(paths: list[str]) -> int:
    """The pack's table from per-release extractions (oldest first; later files win)."""
    table: dict[str, str] = {}
    releases = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            extraction = json.load(fh)
        releases.append(extraction["release"])
        for arch, info in extraction["archs"].items():
            table[arch] = "".join(
                c for c, key in (("G", "generate"), ("P", "pooling"), ("p", "pp"), ("L", "lora")) if info[key]
            )
    doc = DOC.format(first=releases[0], last=releases[-1])
    sys.stdout.write(json.dumps({"_doc": doc, "archs": dict(sorted(table.items()))}, indent=0) + "\n")
    return 0


HISTORY_DOC = (
    "Generated by tools/extract_vllm_model_info.py --history from each release's extraction "
    "(model_executor/models/registry.py : ModelRegistry.models, _PREVIOUSLY_SUPPORTED_MODELS, "
    "_ModelInfo). releases: the releases read, oldest first. registered: the classes a release's "
    "ModelRegistry holds, for those not held by every release: [since, until] ranges (since null: "
    "from the oldest release on; until null: still held; until exclusive). pp / lora: the classes "
    "whose supports_pp / supports_lora differs between releases: the ranges where it is true "
    "(elsewhere false; model_info.json holds the newest value). previously: "
    "_PREVIOUSLY_SUPPORTED_MODELS, class -> [the first release listing it, the release it names]. "
    "transformers: for the classes of registered, what transformers (the oracle's install) exports "
    "under that name: B is_backend_compatible(), A _can_set_attn_implementation(), '' neither. "
    "digest: sha256 of the canonical JSON of the other keys."
)


def _ranges(releases: list[str], held: list[bool]) -> list[list[str | None]]:
    """The [since, until] ranges where ``held`` is true (since None: from the oldest release)."""
    out: list[list[str | None]] = []
    for i, on in enumerate(held):
        if on and (i == 0 or not held[i - 1]):
            out.append([None if i == 0 else releases[i], None])
        if not on and i > 0 and held[i - 1]:
            out[-1][1] = releases[i]
    return out


def names_digest(names: set[str]) -> str:
    """sha256 of the names, sorted, one a line."""
    import hashlib

    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


def history_digest(data: dict) -> str:
    """sha256 of the canonical JSON of ``data`` without ``_doc`` and ``digest``."""
    import hashlib

    body = {k: v for k, v in data.items() if k not in ("_doc", "digest")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def registry_source(wheel: str) -> bytes:
    """The wheel's ``vllm/model_executor/models/registry.py``."""
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        return zf.read("vllm/model_executor/models/registry.py")


def registered_in_source(text: bytes) -> set[str]:
    """The class names ``registry.py`` registers, read from its source: the keys of
    ``_VLLM_MODELS`` (a dict literal of ``**`` unpacked module-level dict literals)."""
    import ast

    tree = ast.parse(text)
    dicts: dict[str, ast.Dict] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            dicts[target.id] = value

    def keys(name: str) -> set[str]:
        out: set[str] = set()
        for key, value in zip(dicts[name].keys, dicts[name].values):
            if key is None and isinstance(value, ast.Name):
                out |= keys(value.id)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                out.add(key.value)
        return out

    return keys("_VLLM_MODELS")


def wheel_facts(wheel_dir: str, releases: list[str]) -> dict[str, str]:
    """release -> sha256 of the wheel's registry.py (``/work/wheels/vllm-<release>-*.whl``)."""
    import glob
    import hashlib

    out = {}
    for release in releases:
        found = sorted(glob.glob(f"{wheel_dir}/vllm-{release}-*.whl"))
        if found:
            out[release] = hashlib.sha256(registry_source(found[0])).hexdigest()
    return out


def history(paths: list[str], transformers_path: str | None = None, wheel_dir: str | None = None) -> dict:
    """The registry history from per-release extractions, oldest release first."""
    infos = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            infos.append(json.load(fh))
    releases = [i["release"] for i in infos]
    held = [set(i["archs"]) | set(i["failed"]) for i in infos]
    everything = sorted(set().union(*held))
    imported = set().union(*(i["archs"] for i in infos))
    # every class not held by every release, and every class no release imported (so that the
    # membership of the classes without facts in model_info.json is known too)
    registered = {
        a: _ranges(releases, [a in h for h in held])
        for a in everything
        if not all(a in h for h in held) or a not in imported
    }
    facts: dict[str, dict[str, list]] = {"pp": {}, "lora": {}}
    for key, out in facts.items():
        for arch in everything:
            seen = [(r, i["archs"][arch][key]) for r, i in zip(releases, infos) if arch in i["archs"]]
            if len({v for _, v in seen}) < 2:
                continue
            # a release that lacks the class (or failed to import it) takes the value of the
            # nearest newer release that imported it, else of the nearest older one
            values: list[bool] = []
            for k in range(len(infos)):
                later = [i["archs"][arch][key] for i in infos[k:] if arch in i["archs"]]
                earlier = [i["archs"][arch][key] for i in infos[:k] if arch in i["archs"]]
                values.append(bool(later[0] if later else earlier[-1]))
            out[arch] = _ranges(releases, values)
    previously: dict[str, list[str]] = {}
    for release, info in zip(releases, infos):
        for arch, last in info.get("previously", {}).items():
            previously.setdefault(arch, [release, last])
    data: dict = {
        "_doc": HISTORY_DOC,
        "releases": releases,
        "registered": registered,
        "pp": facts["pp"],
        "lora": facts["lora"],
        "previously": dict(sorted(previously.items())),
        # per release: sha256 of its ModelRegistry's class names, sorted, one a line
        "registered_sha256": {r: names_digest(h) for r, h in zip(releases, held)},
    }
    if transformers_path:
        with open(transformers_path, encoding="utf-8") as fh:
            exported = json.load(fh)
        data["transformers"] = {a: exported[a] for a in sorted(registered) if a in exported}
    if wheel_dir:
        data["registry_sha256"] = wheel_facts(wheel_dir, releases)
    data["digest"] = history_digest(data)
    return data


def transformers_classes(paths: list[str]) -> int:
    """What the oracle's transformers exports under each class name of the extractions."""
    import oracle

    oracle.setup({"fa2", "fa3", "fa4", "flashinfer", "flashmla"})
    import transformers

    names: set[str] = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
        names |= set(info["archs"]) | set(info["failed"])
    out: dict[str, str] = {}
    for name in sorted(names):
        cls = getattr(transformers, name, None)
        if not (isinstance(cls, type) and issubclass(cls, transformers.PreTrainedModel)):
            continue
        out[name] = ("B" if cls.is_backend_compatible() else "") + (
            "A" if cls._can_set_attn_implementation() else ""
        )
    json.dump(out, sys.stdout, indent=0, sort_keys=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--merge"]:
        sys.exit(merge(sys.argv[2:]))
    if sys.argv[1:2] == ["--transformers"]:
        sys.exit(transformers_classes(sys.argv[2:]))
    if sys.argv[1:2] == ["--history"]:
        args = sys.argv[2:]
        tf = None
        wheels = None
        while args[:1] in (["--transformers-file"], ["--wheels"]):
            if args[0] == "--wheels":
                wheels = args[1]
            else:
                tf = args[1]
            args = args[2:]
        sys.stdout.write(json.dumps(history(args, tf, wheels), indent=0, sort_keys=False) + "\n")
        sys.exit(0)
    sys.exit(main())
