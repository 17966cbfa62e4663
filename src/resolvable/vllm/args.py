"""``VllmArgs``: the vLLM 0.33.0 arguments this pack reads or resolves.

Field names follow vLLM's engine arguments (``engine/arg_utils.py``; the CLI flag is ``--`` +
the name with dashes); the resolved per-layer-kind backends are this pack's own fields.
Invariants:

* a field rules may write is ``resolvable=True``; everything else is input only;
* the per-kind backend fields are None when the model has no layer of that kind;
* ``--attention-config`` JSON is flattened by ``api.resolve_vllm_args`` into the fields
  ``attention_backend``, ``backend_per_kind``, ``flash_attn_version``, ``mla_prefill_backend``,
  ``use_trtllm_attention`` and ``use_non_causal`` before resolution (inputs stay scalars).
"""

from __future__ import annotations

from ..rules import record
from ..rules import record_arg as arg
from . import choices as C
from .config.fields import ConfigArgs

_BACKEND = C.ATTENTION_BACKENDS
_KIND_HELP = "Backend of the model's {} layers (None: the model has none)."


@record  # a dataclass in behaviour, without importing dataclasses (import cost)
class VllmArgs(ConfigArgs):  # engine-configuration fields: resolvable.vllm.config.fields
    # -- inputs ------------------------------------------------------------------------------
    model: str | None = arg(None, help="Model: bundled sample name, config.json, model dir, or hub id.")
    tensor_parallel_size: int = arg(1, help="Tensor-parallel size (heads per rank = heads / TP).")
    decode_context_parallel_size: int = arg(1, help="Decode context-parallel size (DCP).")
    prefill_context_parallel_size: int = arg(1, help="Prefill context-parallel size (PCP).")
    attention_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.selected_backend",
        choices=_BACKEND,
        help="Attention backend for every layer (validated, never replaced on CUDA).",
    )
    backend_per_kind: list[str] = arg(
        cli=False,
        help="Per-KV-group overrides as KIND=BACKEND (from --attention-config backend_per_kind).",
        default_factory=list,
    )
    use_trtllm_attention: bool | None = arg(None, help="Force TRTLLM attention on (True) or off (False).")
    use_non_causal: bool = arg(
        False,
        resolvable=True,
        leaf="attn.use_non_causal",
        help="Non-causal (bidirectional) decoder attention.",
    )
    kv_connector: bool = arg(False, help="A KV-transfer connector is configured (--kv-transfer-config).")
    num_speculative_tokens: int = arg(
        0,
        resolvable=True,
        leaf="speculative.num_speculative_tokens",
        help="Speculative tokens per step (0: no speculative decoding; also from --speculative-config).",
    )
    enforce_eager: bool = arg(False, help="Disable CUDA graphs.")
    disable_multimodal: bool = arg(False, help="Text-only serving (mm_prefix stays off).")
    kernels: str | None = arg(
        None,
        help="Override installed-kernel facts, e.g. 'flashinfer=0,fa3=1' (see `resolvable.vllm.kernels`).",
    )

    # -- resolved ----------------------------------------------------------------------------
    dtype: str = arg("auto", resolvable=True, leaf="model.dtype", choices=C.DTYPES, help="Model dtype.")
    use_mla: bool = arg(False, resolvable=True, leaf="model.use_mla", help="The model runs MLA attention.")
    installed_kernels: list[str] = arg(
        resolvable=True,
        leaf="platform.kernels",
        cli=False,
        help="Optional kernels present (standard-install defaults, then --kernels).",
        default_factory=list,
    )
    kv_cache_dtype: str = arg(
        "auto", resolvable=True, leaf="cache.dtype", choices=C.KV_CACHE_DTYPES, help="KV-cache dtype."
    )
    block_size: int | None = arg(
        None, resolvable=True, leaf="cache.block_size", help="KV-cache block size (tokens)."
    )
    attn_backend_full: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.full",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("full-attention"),
    )
    attn_backend_sliding_window: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.sliding_window",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("sliding-window"),
    )
    attn_backend_mla: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.mla",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("MLA (dense or sparse)"),
    )
    attn_backend_indexer: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.indexer",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("sparse-attention indexer"),
    )
    attn_backend_encoder: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.encoder",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("encoder / encoder-only"),
    )
    attn_backend_cross: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backends.cross",
        choices=_BACKEND,
        cli=False,
        help=_KIND_HELP.format("cross-attention"),
    )
    flash_attn_version: int | None = arg(
        None,
        resolvable=True,
        leaf="attn.flash_attn_version",
        choices=(2, 3, 4),
        help="FlashAttention version.",
    )
    mla_prefill_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.mla_prefill_backend",
        choices=C.MLA_PREFILL_BACKENDS,
        help="MLA prefill backend.",
    )
    cudagraph_mode: str | None = arg(
        None,
        resolvable=True,
        leaf="compilation.cudagraph_mode",
        choices=C.CUDAGRAPH_MODES,
        help="CUDA-graph mode.",
    )


#: The per-kind backend fields, by the kind name used in explain and tables.
KIND_FIELDS = {
    "full": "attn_backend_full",
    "sliding_window": "attn_backend_sliding_window",
    "mla": "attn_backend_mla",
    "indexer": "attn_backend_indexer",
    "encoder": "attn_backend_encoder",
    "cross": "attn_backend_cross",
}
