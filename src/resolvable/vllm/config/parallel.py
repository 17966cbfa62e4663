"""The parallel layout: world size, executor, the node's GPU count, TP/DCP/PCP checks
(vllm-config-spec.md §3.15).

The node is part of the platform: ``Platform.device_count`` is the number of GPUs vLLM sees
(``current_platform.device_count()``); presets say 8 for GPU nodes, and ``--gpus N`` (CLI) or
``with_gpus(platform, n)`` sets it. Invariants: the world size is ``pp × tp × pcp`` (DP engines
are separate processes, each with its own world); the executor default follows
``ParallelConfig.__post_init__`` exactly (no Ray placement group exists offline).
"""

from __future__ import annotations

from ...errors import ConflictError, InvalidArgumentError
from ...rules import Fix, Force, record_replace
from .._base import registry
from ..changes import CHANGES
from . import model_info
from .facts import derived_fact, is_moe, num_heads, num_kv_heads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...rules import HFConfig, Platform


def with_gpus(platform: Platform, gpus: int | None) -> Platform:
    """``platform`` with ``gpus`` devices on the node (``--gpus N``); None keeps the preset's count."""
    if gpus is None:
        return platform
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
        raise InvalidArgumentError(f"--gpus must be a positive integer (GPUs on the node), got {gpus!r}")
    if gpus == platform.device_count:
        return platform
    return record_replace(platform, device_count=gpus)


@registry.rule("engine_args")
def parallel_layout(ctx: Any) -> dict[str, Any]:
    """§3.15: ``ParallelConfig._validate_parallel_config`` (``config/parallel.py`` 594: DCP must divide
    TP without PCP; with PCP, DCP ∈ {1, pcp, tp·pcp}) and ``ParallelConfig.__post_init__`` (962:
    world size = pp × tp × pcp; executor ``mp`` for more than one rank — refused on CUDA when the
    node has fewer GPUs — ``ray`` for a Ray DP backend, ``uni`` for one rank)."""
    a = ctx.args
    tp, pp = a.tensor_parallel_size, a.pipeline_parallel_size
    pcp, dcp = a.prefill_context_parallel_size, a.decode_context_parallel_size
    axes = ctx.release.has(CHANGES.PCP_DCP_AXES)  # 0.25: DCP divides TP whatever PCP is
    if pcp == 1 or not axes:
        if tp % dcp != 0:
            raise ConflictError(
                f"tp_size={tp} must be divisible {'by ' if axes else 'by'}dcp_size={dcp}.",
                fields=("tensor_parallel_size", "decode_context_parallel_size"),
                fix=Fix.any_of(
                    Fix(set={"decode_context_parallel_size": _largest_divisor(tp, dcp)}),
                    Fix(set={"decode_context_parallel_size": 1}),
                    text=f"pass --decode-context-parallel-size {_largest_divisor(tp, dcp)} or 1",
                ),
            )
    elif dcp not in (1, pcp, tp * pcp):
        raise ConflictError(
            "When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP "
            f"axis. Got TP={tp}, PCP={pcp}, DCP={dcp}; valid DCP sizes are {sorted({1, pcp, tp * pcp})}.",
            fields=("decode_context_parallel_size",),
            fix=Fix.any_of(
                Fix(set={"decode_context_parallel_size": 1}),
                Fix(set={"decode_context_parallel_size": pcp}),
                text=f"pass --decode-context-parallel-size 1 or {pcp}",
            ),
        )
    world = pp * tp * pcp
    out: dict[str, Any] = {"world_size": world} if world != a.world_size else {}
    backend = a.distributed_executor_backend
    if backend == "external_launcher" and a.data_parallel_size > 1 and "RANK" not in ctx.env:
        # ParallelConfig.__post_init__: the DP rank comes from torchrun's int(os.environ["RANK"])
        raise ConflictError(
            "'RANK' (KeyError: the external_launcher executor with data parallelism reads the DP rank "
            "from torchrun's RANK environment variable)",
            fields=("distributed_executor_backend", "data_parallel_size"),
            fix=Fix(env={"RANK": "0"}, note="(launch with torchrun, which sets RANK)"),
            upstream="KeyError",
        )
    if backend is None and world * a.data_parallel_size > 1:
        gpus = ctx.platform.device_count
        if ctx.platform.vendor == "cuda" and a.nnodes == 1 and gpus < world:
            raise ConflictError(
                f"World size ({world}) is larger than the number of available GPUs ({gpus}) in this "
                "node. If this is intentional and you are using: - ray, set "
                "'--distributed-executor-backend ray'. - multiprocessing, set '--nnodes' appropriately.",
                fields=("tensor_parallel_size", "pipeline_parallel_size"),
                fix=Fix(
                    set={"tensor_parallel_size": _fit(tp, gpus)}, note=f"(at most {gpus} GPUs on this node)"
                ),
            )
        backend = "mp"
    if backend is None and world == 1:
        backend = "uni"
    if backend != a.distributed_executor_backend:
        out["distributed_executor_backend"] = backend
    return out


def _largest_divisor(n: int, at_most: int) -> int:
    """The largest divisor of ``n`` not above ``at_most`` (a fix to try; 1 always divides)."""
    return max(d for d in range(1, max(1, min(n, at_most)) + 1) if n % d == 0)


def _fit(tp: int, gpus: int) -> int:
    """The largest power-of-two TP that fits the node (a fix to try, checked by resolving again)."""
    size = 1
    while size * 2 <= min(tp, gpus):
        size *= 2
    return size


@registry.rule("vllm_config")
def verify_with_parallel_config(ctx: Any) -> dict[str, Any]:
    """§3.15: ``ModelConfig.verify_with_parallel_config`` (``config/model.py`` 1545): attention heads
    divisible by TP; expert parallelism needs experts; DCP on a GQA/MQA (non-MLA) model needs TP above the KV-head count,
    ``dcp <= tp // kv_heads`` and query heads per KV head divisible by DCP."""
    return check_with_parallel_config(ctx)


def check_with_parallel_config(ctx: Any) -> dict[str, Any]:
    """The checks of ``verify_with_parallel_config`` (also run earlier, at ``SpeculativeConfig``, when
    the draft is the target: ``config.speculative.draft_is_the_target``)."""
    a = ctx.args
    tp = a.tensor_parallel_size
    heads = derived_fact(ctx.hf, "vllm.num_heads", num_heads)
    if heads % tp != 0:
        raise ConflictError(
            f"Total number of attention heads ({heads}) must be divisible by tensor parallel size ({tp}).",
            fields=("tensor_parallel_size",),
            fix=Fix(set={"tensor_parallel_size": _largest_divisor(heads, tp)}),
        )
    if a.enable_expert_parallel and not derived_fact(ctx.hf, "vllm.is_moe", is_moe):
        raise ConflictError(
            "Number of experts in the model must be greater than 0 when expert parallelism is enabled.",
            fields=("enable_expert_parallel",),
            fix=Fix(drop=("enable_expert_parallel",)),
        )
    dcp = a.decode_context_parallel_size
    if dcp > 1 and not a.use_mla:
        kv = derived_fact(ctx.hf, "vllm.num_kv_heads", num_kv_heads)
        if tp <= kv:
            raise ConflictError(
                "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
                f"({tp}) to be greater than the model's total number of KV heads ({kv}). Increase "
                "`--tensor-parallel-size` or set `--decode-context-parallel-size 1`.",
                fields=("decode_context_parallel_size", "tensor_parallel_size"),
                fix=Fix(set={"decode_context_parallel_size": 1}),
            )
        max_dcp = tp // kv
        if dcp > max_dcp:
            raise ConflictError(
                f"`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value "
                f"({max_dcp}) for `--tensor-parallel-size` ({tp}) and {kv} model KV heads.",
                fields=("decode_context_parallel_size",),
                fix=Fix(set={"decode_context_parallel_size": max_dcp}),
            )
        per_kv = heads // kv
        if per_kv % dcp != 0:
            raise ConflictError(
                f"The model's number of query heads per KV head ({per_kv}) must be divisible by "
                f"`--decode-context-parallel-size` ({dcp}) for GQA/MQA.",
                fields=("decode_context_parallel_size",),
                fix=Fix(set={"decode_context_parallel_size": 1}),
            )
    if a.pipeline_parallel_size > 1 and not supports_pp(ctx.hf, ctx.release):
        raise ConflictError(
            "Pipeline parallelism is not supported for this model. "
            "Supported models implement the `SupportsPP` interface.",
            fields=("pipeline_parallel_size",),
            fix=Fix(set={"pipeline_parallel_size": 1}),
            upstream="NotImplementedError",
        )
    return {}


def supports_pp(hf: HFConfig, release: Any = None) -> bool:
    """``ModelRegistry.is_pp_supported_model``: the registered class (``_normalize_arch``)
    implements ``SupportsPP`` in ``release`` (``ctx.release``; None: the newest); an architecture
    the registry does not hold is assumed to (the Transformers backend supports PP)."""
    found = model_info.normalized(hf.architecture or "", release=release)
    return True if found is None else found[1].pp


@registry.rule("engine_args")
def executor_supports_pp(ctx: Any) -> dict[str, Any]:
    """``EngineArgs._check_feature_supported`` (``engine/arg_utils.py``, 0.30-0.34): pipeline
    parallelism needs the default, ``ray``, ``mp`` or ``external_launcher`` executor (``uni`` is
    refused, with NotImplementedError)."""
    a = ctx.args
    backend = a.distributed_executor_backend
    if a.pipeline_parallel_size > 1 and backend not in (None, "ray", "mp", "external_launcher"):
        name = "Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external launcher"
        raise ConflictError(
            f"{name} is not supported. We recommend to remove {name} from your config.",
            fields=("pipeline_parallel_size", "distributed_executor_backend"),
            fix=Fix.any_of(
                Fix(set={"distributed_executor_backend": "mp"}),
                Fix(set={"pipeline_parallel_size": 1}),
                text="pass --distributed-executor-backend mp (or --pipeline-parallel-size 1)",
            ),
            upstream="NotImplementedError",
        )
    return {}


@registry.rule("engine_args")
def custom_all_reduce(ctx: Any) -> dict[str, Any]:
    """§3.20: ``ParallelConfig.__post_init__`` (``config/parallel.py`` 1167, 0.30-0.34): the custom
    all-reduce kernel is disabled where ``Platform.use_custom_allreduce()`` is False: every platform
    but CUDA and the ROCm MI300/MI350 families (``gfx94*``, ``gfx95*``)."""
    p = ctx.platform
    supported = p.vendor == "cuda" or (
        p.vendor == "hip" and any(g in (p.gcn_arch or "") for g in ("gfx94", "gfx95"))
    )
    if supported or ctx.args.disable_custom_all_reduce:
        return {}
    reason = f"Disabled the custom all-reduce kernel because it is not supported on {p.vendor}."
    return {
        "disable_custom_all_reduce": Force(True, reason)
        if ctx.user_set("disable_custom_all_reduce")
        else True
    }
