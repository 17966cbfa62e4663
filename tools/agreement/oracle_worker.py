"""Oracle worker: builds the REAL sglang ``ServerArgs`` for each case, on simulated hardware.

Runs inside an oracle venv (``/work/oracle/venv-<version>``, sglang installed from the released
wheel), never inside the repo venv, and never imports ``resolvable``. One process serves one
(platform, env) group: hardware facts are faked at the torch level *before* sglang is imported,
because sglang computes many of them once (``lru_cache``, module constants such as
``_is_hip``). Per case it parses the flags with sglang's own ``ServerArgs.add_cli_args`` and
builds ``ServerArgs.from_cli_args`` — the path of ``prepare_server_args`` — and records the
outcome. It never stops on a case: everything a case raises (SystemExit included) is recorded.

Usage (inside the oracle venv)::

    python oracle_worker.py --platform-json '{...Platform.to_dict()...}' --env-json '{}' \
        --cases cases.jsonl --out results.jsonl

Each case line: {"id": ..., "model_dir": DIR (holding config.json), "flags": [...]}.
Each result line: {"id", "outcome": "accepted"|"refused"|"parser_error", "fields": {...},
"exc_type", "message", "where"} ("where": innermost sglang frame of the exception).

Faked probes (see sglang/srt/utils/common.py, platforms/__init__.py, server_args.py,
arg_groups/overrides.py): torch.cuda.is_available / get_device_capability /
get_device_properties (total_memory, gcnArchName, has_fp64) / get_device_name / device_count /
mem_get_info, torch.version.cuda / hip, torch.xpu.*, torch.npu (+ a torch_npu stub),
torch.cpu._is_amx_tile_supported and sgl_kernel's AMX op (is_intel_amx_backend_available),
platform.machine (host arch), SGLANG_USE_CPU_ENGINE (CPU engine), importlib.util.find_spec for
optional kernels (flashinfer, triton_kernels, aiter, ...), and the *_memory_capacity probes
(nvidia-smi / rocminfo / torch_npu / xpu / NUMA) which return the preset's memory. Fake-kernel
registration (torch.library.register_fake) for an op the stub kernel packages do not define is a
no-op (0.5.5-0.5.9 register sgl_kernel fakes at import, unguarded).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
import time
import traceback
import types

#: Bump when what the worker records for a case changes: it keys the comparer's oracle cache.
WORKER_REVISION = "6"

#: ServerArgs fields recorded per accepted case (the six compared fields first).
FIELDS = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "page_size",
    "dtype",
    "kv_cache_dtype",
    "quantization",
    "moe_runner_backend",
    "moe_a2a_backend",
    "disable_cuda_graph",
    "device",
    "tp_size",
    "dp_size",
    "ep_size",
    "pp_size",
    "enable_dp_attention",
    "speculative_algorithm",
    "speculative_draft_attention_backend",
    "speculative_eagle_topk",
    "speculative_num_steps",
    "speculative_num_draft_tokens",
    "dsa_prefill_backend",
    "dsa_decode_backend",
    "mamba_ssm_dtype",
    "disable_radix_cache",
    "chunked_prefill_size",
    "cuda_graph_max_bs",
    "mem_fraction_static",
    "context_length",
    "enable_deterministic_inference",
    "disable_overlap_schedule",
    "enable_multi_layer_eagle",
)

#: Optional packages whose *presence* is a hardware/stack fact: find_spec answers from the
#: preset, not from this venv (which has none of them).
OPTIONAL_KERNELS = (
    "flashinfer",
    "triton_kernels",
    "aiter",
    "flash_attn",
    "sgl_kernel",
    "deep_gemm",
    "tokenspeed_mla",
    "mooncake",
    "torch_npu",
    "sgl_kernel_npu",
    "intel_extension_for_pytorch",
    "vllm",
    "torchair",
)


#: Kernel packages every sglang install of that vendor has (the wheel depends on them).
ALWAYS_PRESENT = {
    "cuda": {"sgl_kernel", "deep_gemm"},
    "hip": {"sgl_kernel", "aiter"},
    "cpu": {"sgl_kernel"},
    "xpu": {"sgl_kernel"},  # sgl-kernel-xpu provides the same module name
    # sglang's Ascend install (0.5.22+ imports sgl_kernel_npu while building ServerArgs); torchair
    # comes with torch_npu (up to 0.5.8 ``utils/common.get_compiler_backend`` imports it at module
    # load while ServerArgs is built; without it those releases answered "NPU detected, but
    # torchair package is not installed", an oracle gap: the answers it changes were deleted from
    # the caches rather than bumping WORKER_REVISION, as for ``_rocm_image_ships_vllm``)
    "npu": {"sgl_kernel_npu", "torchair"},
}


class _StubMeta(type):
    """A class that answers every attribute, call, index: the body of a stub kernel module.

    Called with one callable it returns it (so stub decorators leave functions intact)."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        # the same object on every access: sglang compares stub constants by identity
        # (``quant_type in query_marlin_supported_quant_types()`` with sgl_kernel's scalar_types)
        value = _stub(name)
        setattr(cls, name, value)
        return value

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _stub("result")

    def __getitem__(cls, key):
        return _stub("item")

    def __iter__(cls):
        return iter(())


def _stub(name: str) -> type:
    return _StubMeta(str(name), (), {})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _stub(name)  # stable, as above
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves stub modules for the optional kernel packages the preset has (not installed here)."""

    def __init__(self, roots: set[str]):
        self.roots = roots

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".", 1)[0] in self.roots:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        mod = _StubModule(spec.name)
        mod.__path__ = []
        mod.__version__ = "99.0.0"
        return mod

    def exec_module(self, module):
        pass


def _install_find_spec(present: set[str]) -> None:
    real = importlib.util.find_spec

    def find_spec(name, package=None):
        root = name.split(".", 1)[0]
        if root in OPTIONAL_KERNELS:
            if root in present:
                return importlib.machinery.ModuleSpec(name, None)
            return None
        return real(name, package)

    importlib.util.find_spec = find_spec
    stubbed = {r for r in present if r in OPTIONAL_KERNELS and real(r) is None}
    sys.meta_path.insert(0, _StubFinder(stubbed))


def install_fakes(p: dict) -> None:
    """Make torch (and the host) look like the platform ``p`` (``Platform.to_dict()``)."""
    import platform as pyplatform

    import torch

    # torchvision checks torch's CUDA version at import: import it before faking that.
    with contextlib.suppress(Exception):  # absent or broken torchvision is sglang's concern
        import torchvision  # noqa: F401

    vendor = p["vendor"]
    cc = tuple(p.get("capability") or (0, 0))
    mem_gib = float(p.get("memory_gib") or 256)
    mem_bytes = int(mem_gib * (1 << 30))
    count = int(p.get("device_count") or 1)
    name = p.get("device_name") or vendor
    gcn = p.get("gcn_arch") or ""
    cuda_like = vendor in ("cuda", "hip")

    props = types.SimpleNamespace(
        name=name,
        total_memory=mem_bytes,
        major=cc[0],
        minor=cc[1],
        multi_processor_count=132,
        gcnArchName=f"{gcn}:sramecc+:xnack-" if gcn else "",
        uuid="00000000-0000-0000-0000-000000000000",
        is_integrated=False,
        warp_size=64 if vendor == "hip" else 32,
        L2_cache_size=50 << 20,
        has_fp64=bool(p.get("xpu_xmx")),
        gpu_eu_count=448,
        driver_version="1.0",
    )

    torch.cuda.is_available = lambda: cuda_like
    torch.cuda.device_count = lambda: count if cuda_like else 0
    torch.cuda.get_device_capability = lambda device=None: cc
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.get_device_name = lambda device=None: name
    torch.cuda.current_device = lambda: 0
    torch.cuda.mem_get_info = lambda device=None: (mem_bytes, mem_bytes)
    torch.cuda.is_bf16_supported = lambda *a, **k: True
    cv = p.get("cuda_version")
    torch.version.cuda = f"{cv[0]}.{cv[1]}" if vendor == "cuda" and cv else None
    torch.version.hip = "6.4.43483" if vendor == "hip" else None

    is_xpu = vendor == "xpu"
    if not hasattr(torch, "xpu"):
        torch.xpu = types.ModuleType("torch.xpu")
    torch.xpu.is_available = lambda: is_xpu
    torch.xpu.device_count = lambda: count if is_xpu else 0
    torch.xpu.get_device_properties = lambda device=None: props
    torch.xpu.get_device_name = lambda device=None: name
    torch.xpu.mem_get_info = lambda device=None: (mem_bytes, mem_bytes)
    torch.xpu.get_device_capability = lambda device=None: {"version": "1.0.0"}

    present = set(p.get("kernels") or ()) | ALWAYS_PRESENT.get(vendor, set())
    if vendor == "npu":
        npu = types.ModuleType("torch.npu")
        npu.is_available = lambda: True
        npu.device_count = lambda: count
        npu.get_device_name = lambda device=None: name
        npu.mem_get_info = lambda device=None: (mem_bytes, mem_bytes)
        npu.get_device_properties = lambda device=None: props
        npu.current_device = lambda: 0
        torch.npu = npu
        sys.modules["torch.npu"] = npu
        present.add("torch_npu")  # served by the stub finder (with a real __spec__)

    if vendor == "cpu":
        os.environ["SGLANG_USE_CPU_ENGINE"] = "1"
    amx = bool(p.get("cpu_amx")) and vendor == "cpu"
    torch.cpu._is_amx_tile_supported = lambda: amx
    arch = p.get("cpu_arch") or "x86_64"
    pyplatform.machine = lambda: arch

    if _rocm_image_ships_vllm(vendor):
        present.add("vllm")
    _install_find_spec(present)
    _tolerate_fake_registration_of_stub_ops(torch)


def _rocm_image_ships_vllm(vendor: str) -> bool:
    """Whether the worker serves a stub ``vllm``: ROCm, sglang up to 0.5.8.

    Up to 0.5.8, ``layers/quantization/fp8_kernel.py`` imports ``vllm._C`` at module load on ROCm
    unless ``SGLANG_USE_AITER`` is set (0.5.9 dropped the import). sglang's ROCm images of those
    releases ship vllm; these venvs do not, so the stub stands in there, and only there: on every
    other release or vendor ``find_spec("vllm")`` answers None, as the venv would. The cached
    answers it changes (``ImportError: vllm is required when SGLANG_USE_AITER is set to False``)
    were deleted from the 0.5.5-0.5.8 caches instead of bumping ``WORKER_REVISION``, which would
    have invalidated every release's cache for answers it does not change."""
    return vendor == "hip" and _sglang_release() < (0, 5, 9)


def _sglang_release() -> tuple[int, ...]:
    """The installed sglang's release as integers (``0.5.8.post1`` -> ``(0, 5, 8)``)."""
    from importlib.metadata import version

    parts = []
    for piece in version("sglang").split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _tolerate_fake_registration_of_stub_ops(torch) -> None:
    """``torch.library.register_fake("sgl_kernel::op")`` for an op no stub defines: a no-op.

    Up to 0.5.9 ``layers/quantization/fp8_kernel.py`` registers fake kernels for sgl_kernel ops
    at import, unguarded (0.5.10+ goes through ``utils/patch_torch.register_fake_if_exists``);
    the stub sgl_kernel defines no torch ops, so the import would fail with "operator ... does
    not exist" on every CUDA preset. Registering a fake kernel changes no ServerArgs decision.
    Only namespaces of the stubbed kernel packages are affected, and only for ops that do not
    exist, where the real call raises: a release whose answers did not raise is unchanged."""
    real = torch.library.register_fake

    def register_fake(op, *args, **kwargs):
        if isinstance(op, str) and "::" in op:
            namespace, name = op.split("::", 1)
            if namespace in OPTIONAL_KERNELS and not hasattr(
                getattr(torch.ops, namespace), name.split(".", 1)[0]
            ):
                if args and callable(args[0]):
                    return args[0]
                return lambda fn: fn
        return real(op, *args, **kwargs)

    torch.library.register_fake = register_fake


def patch_after_import(p: dict) -> None:
    """Probes that run a subprocess or read /sys: answer with the preset's facts (MiB)."""
    from sglang.srt.utils import common

    mem_mib = float(p.get("memory_gib") or 256) * 1024
    for fn in (
        "get_nvgpu_memory_capacity",
        "get_amdgpu_memory_capacity",
        "get_npu_memory_capacity",
        "get_xpu_memory_capacity",
        "get_hpu_memory_capacity",
        "get_cpu_memory_capacity",
        "get_mtgpu_memory_capacity",
    ):
        if hasattr(common, fn):
            setattr(common, fn, lambda *a, _m=mem_mib, **k: _m)
    # sgl_kernel is absent here: its AMX op decides cpu_has_amx_support() on the CPU engine.
    # Up to 0.5.22 a module constant; 0.5.23 asks a cached function instead.
    amx = bool(p.get("cpu_amx")) and p["vendor"] == "cpu"
    common.is_intel_amx_backend_available = amx
    # up to 0.5.12 the tile probe is torch._C._cpu's, read once into this module constant
    if hasattr(common, "is_amx_tile_supported"):
        common.is_amx_tile_supported = amx
    if hasattr(common, "_is_intel_amx_backend_available"):
        common._is_intel_amx_backend_available = lambda: amx


class ParserError(Exception):
    """argparse refused the command line (sglang's own parser)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage and exit(2)
        raise ParserError(message)


def _innermost_sglang_frame(tb) -> tuple[str | None, str | None]:
    """(file:line:function, source line) of the innermost sglang frame."""
    where, line = None, None
    for frame in traceback.extract_tb(tb):
        if "/sglang/" in frame.filename:
            where = f"{frame.filename.split('/sglang/', 1)[1]}:{frame.lineno}:{frame.name}"
            line = (frame.line or "").strip()
    return where, line


def _value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


_PREPARED: dict[str, tuple[str, list[str]]] = {}


AUTO_MAP_NOTE = "auto_map dropped (remote config code not available offline)"


def prepare_model_dir(model_dir: str, tmp_root: str) -> tuple[str, list[str]]:
    """The directory sglang is pointed at, and the approximations made to load it offline.

    A checkpoint whose config class is remote code (``auto_map``) cannot be loaded here: the
    code files are not bundled. We drop ``auto_map`` (sglang's own registered config class, if
    any, then applies) and, for a ``model_type`` neither transformers nor sglang knows, register
    a plain ``PretrainedConfig`` holding the keys as they are. Results carry these notes.
    """
    if model_dir in _PREPARED:
        return _PREPARED[model_dir]
    notes: list[str] = []
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as fh:
        cfg = json.load(fh)
    from transformers import CONFIG_MAPPING, AutoConfig, PretrainedConfig

    mt = cfg.get("model_type")
    if "auto_map" in cfg:
        cfg.pop("auto_map")
        # Without --trust-remote-code a class that transformers/sglang register is what real
        # sglang loads too (transformers 5.19 ships Step3p5Config): dropping auto_map is exact
        # then. run_case adds the note only for launches that trust remote code.
        notes.append(AUTO_MAP_NOTE if mt and mt in CONFIG_MAPPING else AUTO_MAP_NOTE + " (no local class)")
    if mt and mt not in CONFIG_MAPPING:
        AutoConfig.register(mt, type(f"GenericConfig_{mt}", (PretrainedConfig,), {"model_type": mt}))
        notes.append(f"model_type {mt!r} unknown to transformers/sglang: generic PretrainedConfig")
    target = model_dir
    if notes:
        # one directory per source (derived checkpoints share a name), the name kept last
        target = os.path.join(tmp_root, f"p{len(_PREPARED)}", os.path.basename(model_dir.rstrip("/")))
        os.makedirs(target, exist_ok=True)
        for extra in os.listdir(model_dir):  # sibling files (hf_quant_config.json, params.json)
            if extra != "config.json":
                src = os.path.join(model_dir, extra)
                if os.path.isfile(src):
                    with open(src, "rb") as a, open(os.path.join(target, extra), "wb") as b:
                        b.write(a.read())
        with open(os.path.join(target, "config.json"), "w", encoding="utf-8") as fh:
            json.dump(cfg, fh)
    _PREPARED[model_dir] = (target, notes)
    return target, notes


def run_case(server_args_cls, case: dict, tmp_root: str) -> dict:
    out: dict = {"id": case["id"]}
    saved_env = dict(os.environ)
    try:
        model_dir, notes = prepare_model_dir(case["model_dir"], tmp_root)
        parser = _Parser(prog="sglang serve")
        server_args_cls.add_cli_args(parser)
        try:
            ns = parser.parse_args(["--model-path", model_dir, *case["flags"]])
        except ParserError as exc:
            out.update(outcome="parser_error", exc_type="ArgumentError", message=str(exc))
            return out
        if not getattr(ns, "trust_remote_code", False):  # the registered class is the real one
            notes = [n for n in notes if n != AUTO_MAP_NOTE]
        if notes:
            out["oracle_notes"] = notes
        args = server_args_cls.from_cli_args(ns)
        # 0.5.17+ leaves construction unresolved; the launchers call resolve_once().
        # Its fields then keep the inputs; the decisions are declarations read through
        # resolved_view (arg_groups/model_override_base.py).
        view = args
        resolve_once = getattr(args, "resolve_once", None)
        if callable(resolve_once):
            resolve_once()
            from sglang.srt.arg_groups.model_override_base import resolved_view

            view = resolved_view(args)
        out["outcome"] = "accepted"
        out["fields"] = {f: _value(getattr(view, f, None)) for f in FIELDS if hasattr(args, f)}
    except BaseException as exc:  # every failure of a case is its outcome
        if isinstance(exc, KeyboardInterrupt):
            raise
        where, line = _innermost_sglang_frame(exc.__traceback__)
        out.update(
            outcome="refused",
            exc_type=type(exc).__name__,
            message=str(exc)[:2000],
            where=where,
            source_line=line,  # the meaning of a bare ``assert cond``
        )
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--platform-json", required=True)
    ap.add_argument("--env-json", default="{}")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    opts = ap.parse_args(argv)

    platform = json.loads(opts.platform_json)
    os.environ.update(json.loads(opts.env_json))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("SGLANG_DISABLE_REQUEST_LOGGING", "1")
    logging.disable(logging.CRITICAL)
    import warnings

    warnings.filterwarnings("ignore")

    with open(opts.cases, encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]

    with open(opts.out, "w", encoding="utf-8") as out:
        try:
            install_fakes(platform)
            from sglang.srt.server_args import ServerArgs

            patch_after_import(platform)
        except BaseException as exc:  # the whole group fails, each case says why
            msg = f"oracle setup failed: {type(exc).__name__}: {exc}"
            for case in cases:
                out.write(json.dumps({"id": case["id"], "outcome": "oracle_error", "message": msg}) + "\n")
            return 0
        logging.disable(logging.CRITICAL)
        import tempfile

        with tempfile.TemporaryDirectory(prefix="oracle-models-") as tmp_root:
            for case in cases:
                t0 = time.perf_counter()
                result = run_case(ServerArgs, case, tmp_root)
                result["seconds"] = round(time.perf_counter() - t0, 3)
                out.write(json.dumps(result) + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
