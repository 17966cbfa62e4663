"""Oracle: run a real vLLM release's attention selector (0.30.0 … 0.34.0) on a CPU-only host.

Run with a release's oracle interpreter (``/work/oracle-vllm/v<V>/bin/python``, built by
``setup_oracle.sh``: the vllm wheel installed with --no-deps, flashinfer-python at the release's
pin, and the shared heavy dependencies, torch 2.13.0 CPU among them, through a ``.pth`` file).
Reads ``{"kernels": [...], "groups": [{"platform": {...}, "env": {...}, "cases": [...]}]}`` as
JSON on stdin; writes one JSON line per case.

One process serves every group of one *install* (the set of kernel packages): the CUDA
capability, device name and environment change between groups, and every ``functools`` cache of
the ``vllm`` modules is cleared then (``_reset``), because vLLM's import costs 30–40 s here.
``--isolated`` (or ``ORACLE_ISOLATED=1`` from the comparer) checks that shortcut: it is what the
per-group answers must equal when each group runs in its own process.

What is faked (vllm-attention-spec.md, appendix B; vllm-config-spec.md §10), and nothing else:

* ``current_platform``: a ``NonNvmlCudaPlatform`` subclass whose capability, name, memory and GPU
  count come from the group, set before any backend module is imported;
* compiled extensions that cannot load without a GPU: ``vllm._C_stable_libtorch`` and, when the
  install has them, ``_vllm_fa2_C``/``_vllm_fa3_C``/``_flashmla_C``/``_flashmla_extension_C``,
  ``tokenspeed_mla``, ``vllm_flash_attn.cute.interface`` (empty modules: "the .so imports");
  ``importlib.util.find_spec`` answers None for kernel packages the install lacks;
* ``VLLM_HAS_FLASHINFER_CUBIN=1`` (no network); ``torch.empty(device="cuda")`` goes to ``meta``;
  the GEMM probes ``_custom_ops.cutlass_*supports*`` return True;
* the current ``VllmConfig`` is a namespace holding the real ``AttentionConfig`` and the fields the
  backends read (HF text config, heads per rank, cache dtype, DCP/PCP sizes, user block size).

The layer arguments (head size, dtype, kv dtype, MLA/sparse/sink/sliding-window/mm-prefix flags,
attention type, heads per rank) come from the case: the comparer derives them from the model
config. What this measures is vLLM's own selection: priorities, every backend's
``validate_configuration``, the FA-version rules, the release's block-size preference
(``_preferred_block_size_for_backends`` 0.31+, the first backend's preference in 0.30, with the
release's ``CacheConfig.DEFAULT_BLOCK_SIZE``) and the MLA prefill selection.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import inspect
import json
import os
import sys
import types

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ["VLLM_HAS_FLASHINFER_CUBIN"] = "1"
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

#: bump when a recorded answer changes meaning (the comparer's cache key includes it)
ORACLE_REVISION = 3

_BASE_ENV = dict(os.environ)
_ABSENT: set[str] = set()  # top-level packages find_spec must not find (not in this install)


def _stub(name: str, permissive: bool = False) -> None:
    module = types.ModuleType(name)
    module.__file__ = f"<stub {name}>"
    if permissive:  # `from stub import anything` works (the real module exposes kernels by name)
        module.__getattr__ = lambda attr: lambda *a, **k: None
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)


_TORCHVISION_LIB = None


def _torchvision_ops() -> None:
    """torchvision's compiled ops are a CUDA build here and do not load; its import still
    registers fake kernels for ``nms``/``qnms``: define those two schemas so the import (which the
    multimodal model classes need for inspection) succeeds."""
    global _TORCHVISION_LIB
    import torch

    try:
        torch.ops.torchvision.nms  # noqa: B018 - present when the compiled ops loaded
        return
    except (AttributeError, RuntimeError):
        pass
    _TORCHVISION_LIB = torch.library.Library("torchvision", "DEF")
    for name in ("nms", "qnms"):
        _TORCHVISION_LIB.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")


class _Hw:
    """The faked device of the current group (read by the platform class at call time)."""

    cc = (9, 0)
    name = "NVIDIA H100 80GB HBM3"
    memory = 80 * 1024**3
    count = 8


def setup(kernels: set[str], family: dict | None = None) -> None:
    family = family or {}
    if family.get("vendor") == "hip":
        # Triton's HIP driver is not active on this host: vllm.triton_utils counts an empty
        # HIP_VISIBLE_DEVICES as "distributed start-up", where 0 active drivers still mean Triton
        # is usable (the CUDA fake's CUDA_VISIBLE_DEVICES="" trick, for ROCm); without it
        # HAS_TRITON is False and 0.30-0.33 pick the V1 runner no real ROCm host picks
        os.environ["HIP_VISIBLE_DEVICES"] = ""
        _BASE_ENV["HIP_VISIBLE_DEVICES"] = ""
    _torchvision_ops()
    import torch

    def on_meta(real):
        def alloc(*args, **kwargs):
            if str(kwargs.get("device", "")).startswith("cuda"):
                kwargs["device"] = "meta"
            return real(*args, **kwargs)

        return alloc

    torch.empty = on_meta(torch.empty)
    # 0.20-0.24's mla/flashinfer_mla.py allocates its workspace on CUDA at import (g_fi_workspace)
    torch.zeros = on_meta(torch.zeros)
    _real_find_spec = importlib.util.find_spec

    def find_spec(name, package=None):
        if name.split(".")[0] in _ABSENT:
            return None
        return _real_find_spec(name, package)

    importlib.util.find_spec = find_spec
    for package, kernel in (("flashinfer", "flashinfer"), ("tokenspeed_mla", "tokenspeed_mla")):
        if kernel not in kernels:  # not installed: `import` fails and find_spec answers None
            _ABSENT.add(package)
            sys.modules[package] = None
    import vllm  # noqa: F401

    _stub("vllm._C_stable_libtorch")
    if tuple(int(x) for x in vllm.__version__.split(".")[:2]) < (0, 24):
        # 0.20-0.23's platforms/cuda.py imports vllm._C at module level (it needs libcuda.so.1);
        # 0.24 moved it into CudaPlatform.import_kernels
        _stub("vllm._C")
    if "fa2" in kernels:
        _stub("vllm.vllm_flash_attn._vllm_fa2_C")
    if "fa3" in kernels:
        _stub("vllm.vllm_flash_attn._vllm_fa3_C")
    if "flashmla" in kernels:
        _stub("vllm._flashmla_C")
        _stub("vllm._flashmla_extension_C")
    if "tokenspeed_mla" in kernels:
        _stub("tokenspeed_mla", permissive=True)
    if "cute_dsl" in kernels:
        _stub("vllm.vllm_flash_attn.cute.interface", permissive=True)

    import vllm.platforms as platforms

    if family.get("vendor") == "hip":
        platforms._current_platform = _fake_rocm(family)
    elif family.get("vendor") == "cpu":
        platforms._current_platform = _fake_cpu(family)
    else:
        platforms._current_platform = _fake_cuda()
    import vllm._custom_ops as ops

    for name in dir(ops):
        if name.startswith("cutlass_") and "supports" in name:
            setattr(ops, name, lambda *a, **k: True)
    if family.get("vendor") in ("hip", "cpu"):
        return  # vllm_flash_attn is the CUDA build's package (it refuses to import elsewhere)
    import vllm.vllm_flash_attn.flash_attn_interface as fai

    fai.FA4_AVAILABLE = "fa4" in kernels and getattr(fai, "FA4_AVAILABLE", True)
    fai.FA2_AVAILABLE = "fa2" in kernels
    fai.FA3_AVAILABLE = "fa3" in kernels


def _fake_cuda():
    from vllm.platforms.cuda import NonNvmlCudaPlatform
    from vllm.platforms.interface import DeviceCapability

    class FakeCuda(NonNvmlCudaPlatform):
        @classmethod
        def get_device_capability(cls, device_id: int = 0):
            return DeviceCapability(major=_Hw.cc[0], minor=_Hw.cc[1])

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return _Hw.name

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            return _Hw.memory

        @classmethod
        def device_count(cls) -> int:
            return _Hw.count

        @classmethod
        def num_compute_units(cls, device_id: int = 0) -> int:
            return 132

    return FakeCuda()


#: PCI device ids vLLM's ROCm platform maps to product names (``_ROCM_DEVICE_ID_NAME_MAP``); a
#: product not in the map is named by amdsmi's ``market_name``
_ROCM_DEVICE_IDS = {"AMD Instinct MI300X": "0x74a1", "AMD Instinct MI325X": "0x74a5"}


def _amdsmi_stub(family: dict) -> None:
    """``amdsmi`` as vLLM's ROCm platform reads it (``platforms/rocm.py``: the import block, the
    GCN arch at import, the product name, the VRAM): the group's device, never a real query."""
    module = types.ModuleType("amdsmi")
    module.__file__ = "<stub amdsmi>"

    class AmdSmiException(Exception):
        pass

    class AmdSmiMemoryType:
        VRAM = 0

    def asic_info(handle):
        return {
            "target_graphics_version": family["gcn_arch"],
            "device_id": _ROCM_DEVICE_IDS.get(_Hw.name, "0x0000"),
            "market_name": _Hw.name,
        }

    module.AmdSmiException = AmdSmiException
    module.AmdSmiMemoryType = AmdSmiMemoryType
    module.amdsmi_init = lambda *a, **k: None
    module.amdsmi_shut_down = lambda *a, **k: None
    module.amdsmi_get_processor_handles = lambda: list(range(_Hw.count))
    module.amdsmi_get_gpu_asic_info = asic_info
    module.amdsmi_get_gpu_memory_total = lambda handle, kind=None: _Hw.memory
    module.amdsmi_get_gpu_device_uuid = lambda handle: f"fake-{handle}"
    module.amdsmi_topo_get_link_type = lambda a, b: {"hops": 1, "type": 2}
    module.amdsmi_topo_get_numa_node_number = lambda handle: 0
    sys.modules["amdsmi"] = module


def _fake_rocm(family: dict):
    """vLLM's own ``RocmPlatform`` over the ``amdsmi`` stub: the GCN arch, product name and VRAM
    come through amdsmi as on a real host; only the device count and compute units (which read
    ``torch.cuda``, absent in this CPU build of torch) are overridden."""
    _amdsmi_stub(family)
    from vllm.platforms.rocm import RocmPlatform

    class FakeRocm(RocmPlatform):
        @classmethod
        def device_count(cls) -> int:
            return _Hw.count

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            # 0.24+ reads the VRAM through amdsmi (the stub's); 0.20-0.23 read
            # torch.cuda.get_device_properties, absent in this CPU build, so EngineArgs'
            # batch defaults fell back to a 0-GiB device (2048 tokens, 256 sequences)
            return _Hw.memory

        @classmethod
        def num_compute_units(cls, device_id: int = 0) -> int:
            return 304

    return FakeRocm()


class _Cpu:
    """The faked x86 CPU's instruction-set answers (``torch.cpu._is_*_supported``)."""

    amx = False
    avx512_bf16 = False


def _fake_cpu(family: dict):
    """vLLM's own ``CpuPlatform`` on this x86 host, with the instruction-set probes of the group
    (``amx``: Sapphire Rapids and later — AMX tiles and AVX-512 BF16; else AVX-512 without BF16)."""
    import platform as host

    import torch

    if host.machine() not in ("x86_64", "AMD64"):
        raise SystemExit("the CPU fake needs an x86 host (Platform.get_cpu_architecture reads it)")
    _Cpu.amx = bool(family.get("amx"))
    _Cpu.avx512_bf16 = bool(family.get("amx"))
    torch.cpu._is_amx_tile_supported = lambda: _Cpu.amx
    torch.cpu._is_avx512_bf16_supported = lambda: _Cpu.avx512_bf16
    torch.cpu._is_avx512_supported = lambda: True
    from vllm.platforms.cpu import CpuPlatform

    return CpuPlatform()


def _reset(platform: dict, env: dict[str, str]) -> None:
    """Switch to a group's device and environment; clear vLLM's functools caches."""
    _Hw.cc = tuple(platform["cc"])
    _Hw.name = platform.get("device_name") or f"NVIDIA sm{_Hw.cc[0]}{_Hw.cc[1]}"
    _Hw.memory = int(float(platform.get("memory_gib") or 80) * 1024**3)
    _Hw.count = int(platform.get("device_count") or 8)
    os.environ.clear()
    os.environ.update(_BASE_ENV)
    os.environ.update(env)
    import vllm.envs as envs

    if hasattr(envs, "disable_envs_cache"):
        envs.disable_envs_cache()
    for name, module in list(sys.modules.items()):
        if not name.startswith("vllm") or module is None:
            continue
        for value in list(getattr(module, "__dict__", {}).values()):
            _clear(value)
            if isinstance(value, type) and value.__module__ == name:
                for attr in list(value.__dict__.values()):
                    _clear(getattr(attr, "__func__", attr))


def _clear(obj) -> None:
    # only functools caches: a generic getattr can trigger lazy loaders (ctypes, platform proxies)
    if isinstance(obj, functools._lru_cache_wrapper):
        obj.cache_clear()


class _Obj(types.SimpleNamespace):
    pass


def _default_block_size() -> int:
    from vllm.config.cache import CacheConfig

    return CacheConfig.DEFAULT_BLOCK_SIZE


def vllm_config(case: dict):
    from vllm.config.attention import AttentionConfig

    att = case["attention"]
    known = {f.name for f in dataclasses.fields(AttentionConfig)}
    kwargs = {
        "backend": att.get("backend"),
        "backend_per_kind": att.get("backend_per_kind") or {},
        "flash_attn_version": att.get("flash_attn_version"),
        "use_trtllm_attention": att.get("use_trtllm_attention"),
        "use_non_causal": att.get("use_non_causal", False),
    }
    attention_config = AttentionConfig(**{k: v for k, v in kwargs.items() if k in known})
    model = case["model"]
    text = _Obj(**model["hf_text"])
    tp = case["tp"]

    class ModelConfig(_Obj):
        def get_num_attention_heads(self, pc, arch_config=None):
            return model["num_heads"] // tp

        def get_num_kv_heads(self, pc, arch_config=None):
            return 1 if model["use_mla"] else max(1, model["num_kv_heads"] // tp)

        def get_head_size(self):
            return model["head_size"]

    import torch

    mc = ModelConfig(
        hf_config=text,
        hf_text_config=text,
        is_diffusion=False,
        is_mm_prefix_lm=model["mm_prefix"],
        rswa_window=None,
        use_mla=model["use_mla"],
        dtype=getattr(torch, model["dtype"]),
        is_hybrid=False,
        attn_type=model.get("attn_type", "decoder"),
    )
    cache = _Obj(
        cache_dtype=case["kv_cache_dtype"],
        block_size=case["block_size"] or _default_block_size(),
        user_specified_block_size=case["block_size"] is not None,
        kv_cache_dtype_skip_layers=None,
    )
    parallel = _Obj(
        tensor_parallel_size=tp,
        decode_context_parallel_size=case.get("dcp", 1),
        prefill_context_parallel_size=1,
    )
    return _Obj(
        model_config=mc,
        cache_config=cache,
        parallel_config=parallel,
        attention_config=attention_config,
        kv_transfer_config=None,
        speculative_config=None,
        compilation_config=_Obj(),
    )


def _preferred_block_size(distinct: list, cfg) -> int:
    from vllm.config.vllm import set_current_vllm_config
    from vllm.platforms import current_platform

    default = _default_block_size()
    if current_platform.is_cpu():
        # the CPU's own default: 128 (CpuPlatform.update_block_size_for_backend passes it, 0.33+;
        # 0.30-0.32 check_and_update_config sets it when the user gave none)
        default = 128
    # a class lookup: the platform instance answers None for unknown attributes (0.30)
    if callable(getattr(type(current_platform), "_preferred_block_size_for_backends", None)):  # 0.31+
        return current_platform._preferred_block_size_for_backends(distinct, default, cfg)
    with set_current_vllm_config(cfg):  # 0.30: the first non-SSM backend decides
        return distinct[0].get_preferred_block_size(default)


def run_case(case: dict) -> dict:
    import torch
    from vllm.config.vllm import set_current_vllm_config
    from vllm.v1.attention import selector

    selector._cached_get_attn_backend.cache_clear()
    cfg = vllm_config(case)
    out: dict = {"id": case["id"], "backends": {}}
    try:
        with set_current_vllm_config(cfg):
            classes = []
            params = inspect.signature(selector.get_attn_backend).parameters
            for layer in case["layers"]:
                kwargs = {
                    "head_size": layer["head_size"],
                    "dtype": getattr(torch, layer["dtype"]),
                    "kv_cache_dtype": layer["kv_cache_dtype"],
                    "use_mla": layer["use_mla"],
                    "has_sink": layer["has_sink"],
                    "use_sparse": layer["use_sparse"],
                    "use_mm_prefix": layer["use_mm_prefix"],
                    "attn_type": layer["attn_type"],
                    "num_heads": layer["num_heads"],
                    "has_sliding_window": layer["has_sliding_window"],
                }
                cls = selector.get_attn_backend(**{k: v for k, v in kwargs.items() if k in params})
                out["backends"][layer["kind"]] = _enum_name(cls)
                classes.append((layer, cls))
            distinct = []
            for _, cls in classes:
                if cls not in distinct:
                    distinct.append(cls)
            if case["model"]["hf_text"].get("index_topk") is not None and case["model"]["use_mla"]:
                # the sparse-attention indexer layers have a KV cache too (mla/indexer.py)
                from vllm.v1.attention.backends.mla.indexer import DeepseekV32IndexerBackend

                distinct.append(DeepseekV32IndexerBackend)
            if case["block_size"] is None and distinct:
                out["block_size"] = _preferred_block_size(distinct, cfg)
            else:
                out["block_size"] = case["block_size"] or _default_block_size()
            for layer, cls in classes:
                if cls.get_name() == "FLASH_ATTN":
                    from vllm.v1.attention.backends.fa_utils import get_flash_attn_version

                    fa_params = inspect.signature(get_flash_attn_version).parameters
                    fa_kwargs = {
                        "head_size": layer["head_size"],
                        "has_sinks": layer["has_sink"],
                        "requires_softcap": bool(
                            getattr(cfg.model_config.hf_text_config, "attn_logit_softcapping", None)
                        ),
                        "supports_fa4_hd256": True,
                        # 0.27's FlashAttentionImpl passes it (sliding_window is not None)
                        "requires_local_attention": layer["kind"] == "sliding_window",
                    }
                    out["flash_attn_version"] = _impl_fa_version(
                        get_flash_attn_version(**{k: v for k, v in fa_kwargs.items() if k in fa_params}),
                        layer["head_size"],
                    )
                    break
            if case["model"]["use_mla"]:
                if importlib.util.find_spec("vllm.v1.attention.backends.mla.prefill") is None:
                    out["mla_prefill_backend"] = _prefill_by_flags()  # 0.20
                else:
                    from vllm.v1.attention.backends.mla.prefill.selector import get_mla_prefill_backend

                    out["mla_prefill_backend"] = _prefill_enum_name(get_mla_prefill_backend(cfg))
    except Exception as exc:  # a refusal: the comparer checks the pack refuses too
        if os.environ.get("ORACLE_TRACE"):
            import traceback

            traceback.print_exc()
        out["error"] = f"{type(exc).__name__}: {str(exc)[:3000]}"
    return out


def _impl_fa_version(version, head_size: int):
    """The version ``FlashAttentionImpl`` runs: 0.20's ``__init__`` (v1/attention/backends/
    flash_attn.py) moves FA3 to FA4 on SM90 when the head is over 256, after
    ``get_flash_attn_version`` (whatever FA4 support or batch invariance say); 0.21 moved that step
    into ``get_flash_attn_version``, so from 0.21 the function's answer is the one run."""
    from vllm.platforms import current_platform
    from vllm.v1.attention.backends.flash_attn import FlashAttentionImpl

    if "head_size > 256" not in inspect.getsource(FlashAttentionImpl.__init__):
        return version
    if (
        head_size > 256
        and version == 3
        and current_platform.is_cuda()
        and current_platform.is_device_capability_family(90)
    ):
        return 4
    return version


def _prefill_by_flags() -> str:
    """0.20's MLA prefill: no selector package; ``MLACommonImpl.__init__`` (layers/attention/
    mla_attention.py) asks three cached flag functions in order (TRT-LLM ragged, FlashInfer, cuDNN)
    and otherwise takes FlashAttention, which needs ``flash_attn_varlen_func`` (vllm_flash_attn on
    CUDA, the upstream flash_attn package on ROCm). Called inside ``set_current_vllm_config``; named
    with 0.21's ``MLAPrefillBackendEnum`` members (cuDNN has none: CUDNN)."""
    from vllm.model_executor.layers.attention import mla_attention as mla

    for fn, name in (
        (mla.use_trtllm_ragged_deepseek_prefill, "TRTLLM_RAGGED"),
        (mla.use_flashinfer_prefill, "FLASHINFER"),
        (mla.use_cudnn_prefill, "CUDNN"),
    ):
        fn.cache_clear()
        if fn():
            return name
    if mla.flash_attn_varlen_func is None:
        raise RuntimeError(
            "MLA attention requires FlashAttention but it is not available (0.20 MLACommonImpl)"
        )
    return "FLASH_ATTN"


def _prefill_enum_name(cls) -> str:
    """The ``MLAPrefillBackendEnum`` member of a prefill class (what ``mla_prefill_backend`` takes;
    the CPU's class calls itself CPU_SDPA_MLA, its member is CPU)."""
    from vllm.v1.attention.backends.mla.prefill.registry import MLAPrefillBackendEnum

    path = f"{cls.__module__}.{cls.__qualname__}"
    for member in MLAPrefillBackendEnum:
        try:
            if member.get_path() == path:
                return member.name
        except Exception:
            continue
    return cls.get_name()


def _enum_name(cls) -> str:
    from vllm.v1.attention.backends.registry import AttentionBackendEnum

    path = f"{cls.__module__}.{cls.__qualname__}"
    for member in AttentionBackendEnum:
        try:
            if member.get_path() == path:
                return member.name
        except Exception:
            continue
    return cls.get_name()


def main() -> None:
    job = json.load(sys.stdin)
    setup(set(job["kernels"]), job.get("family"))
    for group in job["groups"]:
        _reset(group["platform"], group.get("env", {}))
        for case in group["cases"]:
            print(json.dumps(run_case(case)), flush=True)


if __name__ == "__main__":
    main()
