"""Stage "mla_prefill": the MLA prefill backend, a second selection by candidates (spec §6).

``v1/attention/backends/mla/prefill/selector.py : get_mla_prefill_backend`` and
``platforms/interface.py : get_mla_prefill_backend_cls`` (CUDA), ``platforms/rocm.py`` (AITER FA,
then FA), ``platforms/cpu.py`` (ZEN_CPU, then CPU). Checks follow ``prefill/base.py :
validate_configuration`` (compute capability, dtype, dependencies, MLA dimensions). 0.20 has no
prefill selector (CHANGES.MLA_PREFILL_SELECTOR): ``layers/attention/mla_attention.py :
MLACommonImpl.__init__`` picks by flags, FlashAttention by default.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Candidate, Check, Chosen, choose, validate
from .. import fa_version as FA
from .._base import registry
from ..changes import CHANGES
from ._inputs import queries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIMS_FA = ((128, 64, 128), (192, 64, 256), (64, 64, 128), (256, 0, 256))
_DIMS_TRTLLM = ((128, 64, 128), (192, 64, 256))


def _dims(q: Any) -> tuple[int, int, int]:
    return (q.qk_nope_head_dim, q.qk_rope_head_dim, q.v_head_dim)


def _fa_dims(q: Any) -> tuple[tuple[int, int, int], ...] | None:
    """``prefill/flash_attn.py : supports_mla_dimensions``: 0.26 refuses GLM's (192, 64, 256) when
    the model's FA version is 4 (CHANGES.MLA_PREFILL_GLM_DIMS)."""
    if q.vendor == "cuda" and not q.changed(CHANGES.MLA_PREFILL_FA_DIMS):
        return None  # 0.25: FLASH_ATTN prefill declares no dimensions (any)
    if q.vendor == "cuda" and not q.changed(CHANGES.MLA_PREFILL_GLM_DIMS) and FA.model_fa_version(q) == 4:
        return tuple(d for d in _DIMS_FA if d != (192, 64, 256))
    return _DIMS_FA


def _dims_ok(q: Any, dims: Any) -> bool:
    return dims is None or _dims(q) in dims


def _prefill(name: str, *, cc=None, needs=None, dims=None, needs_on_hip=None) -> Candidate:
    """``needs_on_hip``: kernel packages the backend needs on ROCm only (``is_available``)."""

    def available(q: Any) -> bool:
        if needs is not None and not all(q.has(k) for k in needs):
            return False
        return needs_on_hip is None or q.vendor != "hip" or all(q.has(k) for k in needs_on_hip)

    checks = [
        Check("compute capability not supported", lambda q: cc is None or cc(q)),
        Check("dtype not supported", lambda q: q.dtype in ("float16", "bfloat16")),
        Check("required dependencies not available", available),
        Check(
            "Model does not have supported MLA dimensions",
            lambda q: _dims_ok(q, dims(q) if callable(dims) else dims),
        ),
    ]
    return Candidate(name, tuple(checks))


_SM10 = lambda q: q.major == 10  # noqa: E731
PREFILL = {
    # ROCm: ``fa_utils.is_flash_attn_varlen_func_available`` needs aiter's varlen kernel (or the
    # upstream flash_attn package, which the standard ROCm install does not add) (0.30-0.34)
    "FLASH_ATTN": _prefill("FLASH_ATTN", dims=_fa_dims, needs_on_hip=("aiter",)),
    "TRTLLM_RAGGED": _prefill("TRTLLM_RAGGED", cc=_SM10, needs=("flashinfer",), dims=_DIMS_TRTLLM),
    "FLASHINFER": _prefill("FLASHINFER", cc=_SM10, needs=("flashinfer",)),
    "TOKENSPEED_MLA": _prefill("TOKENSPEED_MLA", cc=_SM10, needs=("tokenspeed_mla",)),
    "ROCM_AITER_FA": _prefill("ROCM_AITER_FA", needs=("aiter",)),
    "ZEN_CPU": _prefill("ZEN_CPU", needs=("zentorch",)),
    "CPU": _prefill("CPU"),
}


def priorities(q: Any) -> list[str]:
    if q.vendor == "cpu":
        return ["ZEN_CPU", "CPU"]
    if q.vendor == "hip" and q.changed(CHANGES.ROCM_MLA_PREFILL_AITER_FA):
        return ["ROCM_AITER_FA", "FLASH_ATTN"]
    if q.major == 10:
        # TRTLLM ragged first for GLM's dims from 0.27 (CHANGES.MLA_PREFILL_GLM_DIMS)
        if _dims(q) == (192, 64, 256) and q.changed(CHANGES.MLA_PREFILL_GLM_DIMS):
            return ["TRTLLM_RAGGED", "FLASH_ATTN", "FLASHINFER", "TOKENSPEED_MLA"]
        return ["FLASH_ATTN", "TRTLLM_RAGGED", "FLASHINFER", "TOKENSPEED_MLA"]
    return ["FLASH_ATTN"]


#: 0.20 (before CHANGES.MLA_PREFILL_SELECTOR): ``MLACommonImpl.__init__`` takes FlashAttention
#: unless a deprecated attention-config flag (not modelled) opts into TRT-LLM ragged, FlashInfer or
#: cuDNN; FlashAttention needs ``flash_attn_varlen_func`` (vllm_flash_attn on CUDA; on ROCm the
#: install's kernels, read as for 0.21's FLASH_ATTN prefill).
_FLAG_FA = Candidate(
    "FLASH_ATTN",
    (
        Check(
            "MLA attention requires FlashAttention but it is not available",
            lambda q: q.vendor != "hip" or q.has("aiter"),
        ),
    ),
)


def _flag_chosen(q: Any, selected: str | None) -> dict[str, Any]:
    if selected is not None:
        raise ConflictError(
            "--attention-config mla_prefill_backend is not a field of this release's AttentionConfig",
            fields=("mla_prefill_backend",),
            fix="remove mla_prefill_backend from --attention-config (it arrived in 0.21.0)",
        )
    choice = validate(_FLAG_FA, q, label="MLA prefill")
    if choice.chosen is None:
        raise ConflictError(
            f"MLA prefill: {next(iter(choice.verdicts[0].reasons))}",
            fields=("mla_prefill_backend",),
            fix="install flash_attn, or pick --attention-backend ROCM_AITER_MLA",
        )
    return {"mla_prefill_backend": Chosen("FLASH_ATTN", choice)}


@registry.rule("mla_prefill")
def mla_prefill_selection(ctx: Any) -> dict[str, Any]:
    """Spec §6: a user's ``mla_prefill_backend`` is validated (an invalid one is refused); otherwise
    the first valid backend of the platform list."""
    mla = [q for q in queries(ctx) if q.kind == "mla"]
    if not mla:
        return {}
    q = mla[0]
    if not ctx.release.has(CHANGES.MLA_PREFILL_SELECTOR):
        return _flag_chosen(q, ctx.args.mla_prefill_backend)
    selected = ctx.args.mla_prefill_backend if q.vendor != "cpu" else None
    if selected is not None:
        choice = validate(PREFILL[selected], q, label="MLA prefill")
        if choice.chosen is None:
            raise ConflictError(
                f"Selected MLA prefill backend {selected} is not valid: {list(choice.verdicts[0].reasons)}",
                fields=("mla_prefill_backend",),
                fix="remove mla_prefill_backend from --attention-config",
            )
        return {"mla_prefill_backend": Chosen(selected, choice)}
    choice = choose([PREFILL[n] for n in priorities(q)], q, label="MLA prefill")
    if choice.chosen is None:
        raise ConflictError(
            "No valid MLA prefill backend found. Reasons: "
            + "; ".join(f"{v.name}: {list(v.reasons)}" for v in choice.verdicts),
            fields=("mla_prefill_backend",),
        )
    return {"mla_prefill_backend": Chosen(choice.chosen, choice)}
