"""Per-platform backend selection for one layer query: ``select(query, selected) -> Choice``.

* CUDA and ROCm (``platforms/cuda.py``, ``platforms/rocm.py : get_attn_backend_cls``): a selected
  backend is validated and never replaced (an invalid one is refused with its reasons);
  otherwise every candidate of the priority list is validated and the valid one with the
  lowest index wins; none valid is refused with every reason ("No valid attention backend").
* XPU and CPU (``platforms/xpu.py``, ``platforms/cpu.py``) are hand-written if/else chains; they
  are expressed as candidates too (one per branch, its condition as the checks), so explain
  shows which branch applied and why the earlier ones did not.

Invariant: pure; refusals are ``ConflictError`` carrying vLLM's exception type in ``upstream``.
"""

from __future__ import annotations

import functools

from ..errors import ConflictError
from ..rules import Candidate, Check, Choice, choose, validate
from .backends import cuda as CUDA
from .backends import rocm as ROCM
from .backends._spec import Backend, M, backend, said
from .changes import CHANGES
from .choices import is_quantized_kv
from .query import LayerQuery


def _fields(q: LayerQuery) -> tuple[str, ...]:
    from .args import KIND_FIELDS

    return ("attention_backend", KIND_FIELDS[q.kind])


def _describe(q: LayerQuery) -> str:
    bits = [f"head_size={q.head_size}", f"dtype={q.dtype}", f"kv_cache_dtype={q.kv_cache_dtype}"]
    if q.block_size is not None:
        bits.append(f"block_size={q.block_size}")
    for name in (
        "use_mla",
        "use_sparse",
        "has_sink",
        "has_sliding_window",
        "use_mm_prefix",
        "use_batch_invariant",
    ):
        if getattr(q, name):
            bits.append(f"{name}=True")
    if q.attn_type != "decoder":
        bits.append(f"attn_type={q.attn_type}")
    return ", ".join(bits)


def _reasons_text(choice: Choice) -> str:
    return "{" + ", ".join(f"{v.name}: [{', '.join(v.reasons)}]" for v in choice.verdicts if v.reasons) + "}"


def _validate_selected(q: LayerQuery, selected: str, table: dict[str, Backend], label: str) -> Choice:
    if (
        selected == "FLASH_ATTN_MLA_SPARSE"
        and q.vendor == "cuda"
        and not q.changed(CHANGES.FLASH_ATTN_MLA_SPARSE_BACKEND)
    ):  # AttentionConfig.validate_backend_before: the enum has no such member before 0.25
        raise ConflictError(
            f"Unknown attention backend: '{selected}'.",
            fields=_fields(q),
            fix="pick FLASHMLA_SPARSE, or leave --attention-backend unset (FLASH_ATTN_MLA_SPARSE arrived in 0.25.0)",
        )
    if selected == "TOKENSPEED_MLA" and q.vendor == "cuda" and not q.changed(CHANGES.TOKENSPEED_MLA_BACKEND):
        raise ConflictError(  # 0.20's AttentionBackendEnum has no such member
            f"Unknown attention backend: '{selected}'.",
            fields=_fields(q),
            fix="pick FLASHINFER_MLA or CUTLASS_MLA, or leave --attention-backend unset (TOKENSPEED_MLA arrived in 0.21.0)",
        )
    entry = table.get(selected) or CUDA.BACKENDS.get(selected)
    if entry is None:
        raise ConflictError(
            f"Selected backend {selected} is not valid for this configuration ({label}). "
            f"Reason: [ImportError: {selected} is not available on this platform]",
            fields=_fields(q),
            fix="pick a backend of this platform, or leave --attention-backend unset",
        )
    choice = validate(entry.candidate, q, label=label)
    if choice.chosen is None:
        raise ConflictError(
            f"Selected backend {selected} is not valid for this configuration ({label}: {_describe(q)}). "
            f"Reason: {list(choice.verdicts[0].reasons)}",
            fields=_fields(q),
            fix="remove --attention-backend (auto-selection) or pick a backend that supports this layer",
        )
    return choice


def _auto(q: LayerQuery, names: list[str], table: dict[str, Backend], label: str, device: str) -> Choice:
    choice = choose([table[n].candidate for n in names], q, label=label)
    if choice.chosen is None:
        raise ConflictError(
            f"No valid attention backend found for {device} with {label} ({_describe(q)}). "
            f"Reasons: {_reasons_text(choice)}.",
            fields=_fields(q),
            fix="change the dtype, kv-cache dtype or block size, or run on a platform that supports this layer",
        )
    return choice


@functools.lru_cache(maxsize=4096)
def select(q: LayerQuery, selected: str | None, label: str) -> Choice:
    """The backend of one layer kind (see the module docstring). Pure, so memoised on its
    (hashable) inputs; a refusal raises every time (exceptions are not cached)."""
    if q.kind == "indexer":  # fixed per model (mla/indexer.py), validated like any layer
        return validate(CUDA.DEEPSEEK_V32_INDEXER.candidate, q, label=label)
    if q.vendor == "cuda":
        if selected is not None:
            return _validate_selected(q, selected, CUDA.BACKENDS, label)
        return _auto(q, CUDA.priorities(q), CUDA.BACKENDS, label, "cuda")
    if q.vendor == "hip":
        if selected is not None:
            return _validate_selected(q, selected, ROCM.BACKENDS, label)
        return _auto(q, ROCM.priorities(q), ROCM.BACKENDS, label, "rocm")
    if q.vendor == "xpu":
        return _xpu(q, selected, label)
    if q.vendor == "cpu":
        return _cpu(q, selected, label)
    raise ConflictError(
        f"vLLM has no in-tree attention backend selection for platform {q.vendor!r}",
        fields=("attention_backend",),
        fix="use a CUDA, ROCm, XPU or CPU platform preset (TPU selection lives in tpu_inference)",
        upstream="NotImplementedError",
    )


# -- XPU (platforms/xpu.py : XPUPlatform.get_attn_backend_cls) ----------------------------------
XPU_FLASH_ATTN_MLA = backend(
    "FLASH_ATTN_MLA",
    mla=True,
    kv_dtypes=("auto", "float16", "bfloat16"),
    head_sizes=(576,),
    block_sizes=(M(64),),
    batch_invariant=True,
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashattn_mla.py : XPUFlashAttnMLABackend",
)


def _branch(name: str, reason: str, test) -> Candidate:
    return Candidate(name, (Check(reason, test),))


def _xpu(q: LayerQuery, selected: str | None, label: str) -> Choice:
    if q.use_mla and not q.use_sparse and not q.changed(CHANGES.XPU_FLASH_ATTN_MLA):
        # 0.30-0.31: XPU MLA is always TRITON_MLA, whatever was selected (no XPUFlashAttnMLABackend).
        return choose([_branch("TRITON_MLA", "not MLA", lambda q: q.use_mla)], q, label=label)
    if (
        selected is not None
        and selected not in ("TRITON_ATTN", "FLASH_ATTN", "TRITON_MLA", "FLASH_ATTN_MLA")
        and not q.use_mla
        and not (q.kv_cache_dtype or "").startswith("turboquant_")
        and not q.use_sparse
    ):
        raise ConflictError(
            f"Invalid attention backend for XPU: {selected}",
            fields=_fields(q),
            fix="on XPU choose TRITON_ATTN or FLASH_ATTN (TRITON_MLA / FLASH_ATTN_MLA for MLA models)",
        )
    if q.use_mla and not q.use_sparse:
        if selected not in (None, "TRITON_MLA", "FLASH_ATTN_MLA"):
            raise ConflictError(
                f"Invalid attention backend for XPU MLA: {selected}",
                fields=_fields(q),
                fix="choose TRITON_MLA or FLASH_ATTN_MLA",
            )
        fa_mla_reasons = XPU_FLASH_ATTN_MLA.candidate.reasons(q)
        if selected == "FLASH_ATTN_MLA" and fa_mla_reasons:
            raise ConflictError(
                f"Selected backend FLASH_ATTN_MLA is not valid for this configuration. Reason: {list(fa_mla_reasons)}",
                fields=_fields(q),
            )
    fp32 = q.dtype == "float32"
    branches = [
        _branch(
            "TURBOQUANT",
            "kv_cache_dtype is not turboquant_*",
            lambda q: (q.kv_cache_dtype or "").startswith("turboquant_"),
        ),
        _branch("XPU_MLA_SPARSE", "not sparse MLA", lambda q: q.use_sparse),
        _branch(
            "TRITON_MLA",
            "not MLA, or TRITON_MLA not selected",
            lambda q: q.use_mla and selected == "TRITON_MLA",
        ),
        Candidate(
            "FLASH_ATTN_MLA",
            (Check("not MLA", lambda q: q.use_mla), *XPU_FLASH_ATTN_MLA.candidate.checks[:4]),
        ),
        _branch("TRITON_MLA", "not MLA", lambda q: q.use_mla),
        _branch("TRITON_ATTN", "TRITON_ATTN not selected", lambda q: selected == "TRITON_ATTN"),
        _branch(
            "FLASH_ATTN",
            "not batch-invariant with FLASH_ATTN selected",
            lambda q: q.use_batch_invariant and selected == "FLASH_ATTN",
        ),
        _branch("TRITON_ATTN", "not batch-invariant", lambda q: q.use_batch_invariant),
        _branch(
            "FLASH_ATTN",
            "no mm_prefix with FLASH_ATTN selected",
            lambda q: q.use_mm_prefix and selected == "FLASH_ATTN",
        ),
        _branch(
            "TRITON_FLASH_ATTN",
            "no mm_prefix with head 256/512 and fp16/bf16 (a composite of vLLM 0.33+)",
            lambda q: (
                q.use_mm_prefix
                and q.head_size in (256, 512)
                and not fp32
                and q.changed(CHANGES.XPU_MM_PREFIX_TRITON_FLASH_ATTN)
            ),
        ),
        _branch("TRITON_ATTN", "no mm_prefix", lambda q: q.use_mm_prefix),
        _branch("TRITON_ATTN", "dtype is not float32", lambda q: fp32),
        _branch("FLASH_ATTN", "default", lambda q: True),
    ]
    return choose(branches, q, label=label)


# -- CPU (platforms/cpu.py : CpuPlatform.get_attn_backend_cls) ----------------------------------
CPU_ATTN = backend(
    "CPU_ATTN",
    dtypes=("float16", "bfloat16", "float32"),
    kv_ok=said(
        "auto, bfloat16, float16; fp8 with AMX or AVX-512",
        lambda q, kv: (
            kv in ("auto", "bfloat16", "float16")
            or (kv in ("fp8", "fp8_e4m3", "fp8_e5m2") and (q.has("amx") or q.has("avx512")))
        ),
    ),
    head_sizes=(32, 64, 80, 96, 112, 128, 160, 192, 224, 256, 512),
    block_sizes=(M(32),),
    sliding_window=True,
    sink=True,
    attn_types=("decoder", "encoder", "encoder_only", "encoder_decoder"),
    cg_support="NEVER",
    doc="v1/attention/backends/cpu_attn.py : CPUAttentionBackend",
)
CPU_MLA = backend(
    "CPU_MLA",
    mla=True,
    dtypes=("float16", "bfloat16", "float32"),
    block_sizes=(16,),
    cg_support="NEVER",
    doc="v1/attention/backends/mla/cpu_mla.py : CPUMLABackend (block size exactly 16)",
)
AMX_MLA = backend(
    "AMX_MLA",
    mla=True,
    dtypes=("bfloat16",),
    block_sizes=(M(32),),
    cg_support="NEVER",
    doc="v1/attention/backends/mla/amx_mla.py : AMXMLABackend",
)
CPU_BACKENDS = {b.name: b for b in (CPU_ATTN, CPU_MLA, AMX_MLA)}


def _cpu(q: LayerQuery, selected: str | None, label: str) -> Choice:
    if q.use_mla and not q.changed(CHANGES.CPU_MLA_BACKEND):  # 0.27: no MLA backend on CPU
        raise ConflictError(
            "MLA is not supported on CPU.",
            fields=("attention_backend",),
            upstream="NotImplementedError",
        )
    if q.use_sparse:
        raise ConflictError(
            "Sparse Attention is not supported on CPU.",
            fields=("attention_backend",),
            upstream="NotImplementedError",
        )
    checks = q.changed(CHANGES.CPU_KV_DTYPE_CHECKS)  # 0.33+: refused before selection
    if checks and q.use_mla and is_quantized_kv(q.kv_cache_dtype):
        raise ConflictError(
            f"--kv-cache-dtype {q.kv_cache_dtype} is not supported by MLA attention on CPU.",
            fields=("kv_cache_dtype",),
            fix="use --kv-cache-dtype auto",
        )
    if checks and not q.use_mla and not CPU_ATTN.candidate.checks[2].test(q):
        raise ConflictError(
            f"--kv-cache-dtype {q.kv_cache_dtype} is not supported by the CPU attention backend on this host.",
            fields=("kv_cache_dtype",),
            fix="use --kv-cache-dtype auto (fp8 needs AMX or AVX-512)",
        )
    amx = q.has("amx")
    branches = [
        _branch(
            "AMX_MLA",
            "not MLA on an AMX host (or CPU_MLA selected)",
            lambda q: q.use_mla and amx and selected != "CPU_MLA" and q.changed(CHANGES.CPU_AMX_MLA),
        ),
        _branch("CPU_MLA", "not MLA", lambda q: q.use_mla),
        _branch("CPU_ATTN", "default", lambda q: True),
    ]
    # Any other selected backend is ignored on CPU ("Cannot use X backend on CPU"), as vLLM logs.
    return choose(branches, q, label=label)


def backend_entry(name: str, vendor: str) -> Backend | None:
    """The declaration of backend ``name`` as used on ``vendor`` (for block sizes and CUDA graphs)."""
    if vendor == "cpu" and name in CPU_BACKENDS:
        return CPU_BACKENDS[name]
    if vendor == "xpu" and name == "FLASH_ATTN_MLA":
        return XPU_FLASH_ATTN_MLA
    if vendor == "hip" and name in ROCM.BACKENDS:
        return ROCM.BACKENDS[name]
    return CUDA.BACKENDS.get(name) or ROCM.BACKENDS.get(name) or _XPU_EXTRA.get(name)


_XPU_EXTRA = {
    "XPU_MLA_SPARSE": backend(
        "XPU_MLA_SPARSE", mla=True, sparse=True, block_sizes=(M(64),), cg_support="NEVER"
    ),
}
