"""Oracle: run the real vLLM 0.33.0 selector on a CPU-only host, one platform per process.

Run with the oracle interpreter (``/work/oracle/venv-vllm/bin/python``: torch 2.13.0 CPU build +
the vllm 0.33.0 wheel with --no-deps + the few imports it needs + flashinfer-python 0.7.2.post1).
Reads ``{"platform": {...}, "cases": [...]}`` as JSON on stdin; writes one JSON result per case.

What is faked (vllm-attention-spec.md, appendix B), and nothing else:

* ``current_platform``: a ``NonNvmlCudaPlatform`` subclass with a fixed capability (or a
  ``RocmPlatform`` with a fixed gfx arch), set before any backend module is imported;
* compiled extensions that cannot load without a GPU: ``vllm._C_stable_libtorch`` and, when the
  case's install has them, ``_vllm_fa2_C``/``_vllm_fa3_C``/``_flashmla_C``/``_flashmla_extension_C``,
  ``tokenspeed_mla``, ``vllm_flash_attn.cute.interface`` (empty modules: "the .so imports");
* ``VLLM_HAS_FLASHINFER_CUBIN=1`` (no network); ``torch.empty(device="cuda")`` goes to ``meta``;
  the GEMM probes ``_custom_ops.cutlass_*supports*`` return True;
* the current ``VllmConfig`` is a namespace holding the real ``AttentionConfig`` and the fields the
  backends read (HF text config, heads per rank, cache dtype, DCP/PCP sizes, user block size).

The layer arguments (head size, dtype, kv dtype, MLA/sparse/sink/sliding-window/mm-prefix flags,
attention type, heads per rank) come from the case: the comparer derives them from the model
config. What this measures is vLLM's own selection: priorities, every backend's
``validate_configuration``, the FA-version rules, ``_preferred_block_size_for_backends`` and the
MLA prefill selection.
"""

from __future__ import annotations

import json
import os
import sys
import types

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ["VLLM_HAS_FLASHINFER_CUBIN"] = "1"
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")


def _stub(name: str, permissive: bool = False) -> None:
    module = types.ModuleType(name)
    module.__file__ = f"<stub {name}>"
    if permissive:  # `from stub import anything` works (the real module exposes kernels by name)
        module.__getattr__ = lambda attr: lambda *a, **k: None
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)


def setup(platform: dict, kernels: set[str], env: dict[str, str]) -> None:
    for key, value in env.items():
        os.environ[key] = value
    import torch

    _real_empty = torch.empty

    def empty(*args, **kwargs):
        if str(kwargs.get("device", "")).startswith("cuda"):
            kwargs["device"] = "meta"
        return _real_empty(*args, **kwargs)

    torch.empty = empty
    import vllm  # noqa: F401

    _stub("vllm._C_stable_libtorch")
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
    from vllm.platforms.interface import DeviceCapability

    if platform["vendor"] == "cuda":
        from vllm.platforms.cuda import NonNvmlCudaPlatform

        major, minor = platform["cc"]

        class FakeCuda(NonNvmlCudaPlatform):
            @classmethod
            def get_device_capability(cls, device_id: int = 0):
                return DeviceCapability(major=major, minor=minor)

            @classmethod
            def get_device_name(cls, device_id: int = 0) -> str:
                return f"fake-sm{major}{minor}"

            @classmethod
            def device_count(cls) -> int:
                return 8

            @classmethod
            def num_compute_units(cls, device_id: int = 0) -> int:
                return 132

        platforms._current_platform = FakeCuda()
    elif platform["vendor"] == "hip":
        raise SystemExit("ROCm oracle not set up in this harness")
    elif platform["vendor"] == "cpu":
        pass  # the real CPU platform
    import vllm._custom_ops as ops

    for name in dir(ops):
        if name.startswith("cutlass_") and "supports" in name:
            setattr(ops, name, lambda *a, **k: True)
    if "fa4" not in kernels:
        import vllm.vllm_flash_attn.flash_attn_interface as fai

        fai.FA4_AVAILABLE = False
    if "fa2" in kernels or "fa3" in kernels:
        import vllm.vllm_flash_attn.flash_attn_interface as fai

        fai.FA2_AVAILABLE = "fa2" in kernels
        fai.FA3_AVAILABLE = "fa3" in kernels


class _Obj(types.SimpleNamespace):
    pass


def _hf(text: dict) -> _Obj:
    return _Obj(**text)


def vllm_config(case: dict):
    from vllm.config.attention import AttentionConfig

    att = case["attention"]
    attention_config = AttentionConfig(
        backend=att.get("backend"),
        backend_per_kind=att.get("backend_per_kind") or {},
        flash_attn_version=att.get("flash_attn_version"),
        use_trtllm_attention=att.get("use_trtllm_attention"),
        use_non_causal=att.get("use_non_causal", False),
    )
    model = case["model"]
    text = _hf(model["hf_text"])
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
        attn_type="decoder",
    )
    cache = _Obj(
        cache_dtype=case["kv_cache_dtype"],
        block_size=case["block_size"] or 16,
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


def run_case(case: dict) -> dict:
    import torch
    from vllm.config.vllm import set_current_vllm_config
    from vllm.platforms import current_platform
    from vllm.v1.attention import selector

    selector._cached_get_attn_backend.cache_clear()
    cfg = vllm_config(case)
    out: dict = {"id": case["id"], "backends": {}}
    try:
        with set_current_vllm_config(cfg):
            classes = []
            for layer in case["layers"]:
                cls = selector.get_attn_backend(
                    head_size=layer["head_size"],
                    dtype=getattr(torch, layer["dtype"]),
                    kv_cache_dtype=layer["kv_cache_dtype"],
                    use_mla=layer["use_mla"],
                    has_sink=layer["has_sink"],
                    use_sparse=layer["use_sparse"],
                    use_mm_prefix=layer["use_mm_prefix"],
                    attn_type=layer["attn_type"],
                    num_heads=layer["num_heads"],
                    has_sliding_window=layer["has_sliding_window"],
                )
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
            if case["block_size"] is None:
                out["block_size"] = current_platform._preferred_block_size_for_backends(distinct, 16, cfg)
            else:
                out["block_size"] = case["block_size"]
            for layer, cls in classes:
                if cls.get_name() == "FLASH_ATTN":
                    from vllm.v1.attention.backends.fa_utils import get_flash_attn_version

                    out["flash_attn_version"] = get_flash_attn_version(
                        head_size=layer["head_size"],
                        has_sinks=layer["has_sink"],
                        requires_softcap=bool(
                            getattr(cfg.model_config.hf_text_config, "attn_logit_softcapping", None)
                        ),
                        supports_fa4_hd256=True,
                    )
                    break
            if case["model"]["use_mla"]:
                from vllm.v1.attention.backends.mla.prefill.selector import get_mla_prefill_backend

                out["mla_prefill_backend"] = get_mla_prefill_backend(cfg).get_name()
    except Exception as exc:  # a refusal: the comparer checks the pack refuses too
        out["error"] = f"{type(exc).__name__}: {str(exc)[:3000]}"
    return out


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
    setup(job["platform"], set(job["kernels"]), job.get("env", {}))
    for case in job["cases"]:
        print(json.dumps(run_case(case)), flush=True)


if __name__ == "__main__":
    main()
