"""Oracle: a real vLLM release's ``EngineArgs.create_engine_config`` on a CPU-only host.

Run with a release's oracle interpreter (``/work/oracle-vllm/v<V>/bin/python``, built by
``tools/agreement_vllm/setup_oracle.sh``). Reads ``{"kernels": [...], "groups": [{"platform":
{...}, "env": {...}, "cases": [{"id", "config", "argv"}]}]}`` as JSON on stdin; writes one JSON
line per case: ``{"id", "values": {...}}`` or ``{"id", "error": "Type: message"}``.

Per case, as ``vllm serve`` does up to the engine (vllm-config-spec.md §2, §10): the model config
is written to ``DIR/config.json``; vLLM's own parser (``FlexibleArgumentParser`` +
``AsyncEngineArgs.add_cli_args``) parses ``--model DIR <argv>``;
``AsyncEngineArgs.from_cli_args(ns).create_engine_config(UsageContext.OPENAI_API_SERVER)`` runs;
the derived values of spec §3 are read off the ``VllmConfig`` (``extract``).

Fakes, on top of the selector oracle's (``tools/agreement_vllm/oracle.py``: the CUDA platform with
the group's capability, product name, memory and GPU count; the kernel stubs): the model-class
inspection runs inline instead of in a subprocess (the subprocess would import vLLM again without
the fake platform); ``HF_HUB_OFFLINE=1``; ``os.environ`` is restored after every case (vLLM writes
to it). Out of reach (spec §10): the final block size and ``cudagraph_mode`` decided after the
model is built, memory profiling.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("VLLM_CACHE_ROOT", tempfile.mkdtemp(prefix="vllm-oracle-cache-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agreement_vllm"))

import oracle

WORKER_REVISION = 5


class _DummyOp:
    """A custom op this CPU build lacks: attribute access and calls succeed (spec §10: the
    fusion passes read ``torch.ops._C.<op>.default`` at import; stub, do not disable them)."""

    def __getattr__(self, name):
        return _DummyOp()

    def __call__(self, *args, **kwargs):
        return None


class _PermissiveOps:
    def __init__(self, real) -> None:
        self._real = real

    def __getattr__(self, name):
        try:
            return getattr(self._real, name)
        except (AttributeError, RuntimeError):
            return _DummyOp()


def _stub_custom_ops() -> None:
    import torch

    torch.ops._C = _PermissiveOps(torch.ops._C)


def _inline_inspection() -> None:
    import vllm.model_executor.models.registry as registry

    registry._run_in_subprocess = lambda fn: fn()


def _name(value):
    if value is None:
        return None
    return getattr(value, "name", str(value))


def _dtype(value) -> str | None:
    return None if value is None else str(value).replace("torch.", "")


def extract(cfg) -> dict:
    """The §3 values of a ``VllmConfig`` (keys: see /work/coord/h17o-config-oracle.md)."""
    m, c, s, p, cc = (
        cfg.model_config,
        cfg.cache_config,
        cfg.scheduler_config,
        cfg.parallel_config,
        cfg.compilation_config,
    )
    spec = cfg.speculative_config
    out = {
        "dtype": _dtype(m.dtype),
        "max_model_len": m.max_model_len,
        "quantization": m.quantization,
        "kv_cache_dtype": c.cache_dtype,
        "block_size_config": c.block_size,
        "mamba_block_size": getattr(c, "mamba_block_size", None),
        "mamba_cache_mode": getattr(c, "mamba_cache_mode", None),
        "enable_prefix_caching": c.enable_prefix_caching,
        "gpu_memory_utilization": getattr(c, "resolved_gpu_memory_utilization", None)
        or c.gpu_memory_utilization,
        "max_num_batched_tokens": s.max_num_batched_tokens,
        "max_num_seqs": s.max_num_seqs,
        "max_num_scheduled_tokens": getattr(s, "max_num_scheduled_tokens", None),
        "enable_chunked_prefill": s.enable_chunked_prefill,
        "async_scheduling": s.async_scheduling,
        "compilation_mode": _name(cc.mode),
        "cudagraph_mode": _name(cc.cudagraph_mode),
        "cudagraph_capture_sizes": sorted(cc.cudagraph_capture_sizes or []),
        "max_cudagraph_capture_size": cc.max_cudagraph_capture_size,
        "tensor_parallel_size": p.tensor_parallel_size,
        "pipeline_parallel_size": p.pipeline_parallel_size,
        "data_parallel_size": p.data_parallel_size,
        "decode_context_parallel_size": p.decode_context_parallel_size,
        "world_size": p.world_size,
        "enable_expert_parallel": p.enable_expert_parallel,
        "distributed_executor_backend": p.distributed_executor_backend
        if isinstance(p.distributed_executor_backend, (str, type(None)))
        else getattr(p.distributed_executor_backend, "__name__", "custom"),
        "speculative_method": getattr(spec, "method", None),
        "num_speculative_tokens": getattr(spec, "num_speculative_tokens", 0) if spec else 0,
        "disable_hybrid_kv_cache_manager": getattr(s, "disable_hybrid_kv_cache_manager", None),
        "attn_type": getattr(m, "attn_type", None),
        "runner_type": getattr(m, "runner_type", None),
        # revision 3: the -O level (VllmConfig may lower it, e.g. for --enforce-eager) and PCP
        "optimization_level": int(cfg.optimization_level),
        "prefill_context_parallel_size": p.prefill_context_parallel_size,
    }
    if hasattr(type(cfg), "use_v2_model_runner"):  # 0.22-0.33: VllmConfig.use_v2_model_runner
        out["use_v2_model_runner"] = bool(cfg.use_v2_model_runner)
    elif _v1_runner_by_env():  # 0.21: no property; the V2 runner is VLLM_USE_V2_MODEL_RUNNER alone
        import vllm.envs as envs

        out["use_v2_model_runner"] = bool(envs.VLLM_USE_V2_MODEL_RUNNER)
    else:  # 0.34 has no V1 runner: the property is gone
        out["use_v2_model_runner"] = True
    return out


def _v1_runner_by_env() -> bool:
    """vLLM 0.21 and below: ``VllmConfig`` reads ``envs.VLLM_USE_V2_MODEL_RUNNER`` (a bool, default
    False) and has no ``use_v2_model_runner`` property (0.22 added it with the default-V2 list).
    Read off the release's own ``config/vllm.py`` source, not its version."""
    import inspect

    import vllm.config.vllm as cfg_module

    return "envs.VLLM_USE_V2_MODEL_RUNNER:" in inspect.getsource(cfg_module)


#: Where a CUDA runtime library may lie on the oracle host (the first that exists is loaded).
_CUDART_CANDIDATES = ("/usr/local/cuda/lib64/libcudart.so", "/usr/local/cuda-13.0/lib/libcudart.so")


def _preload_cudart() -> None:
    """flashinfer-python 0.6.13 (the vLLM 0.25.x pin) builds ``flashinfer.comm.cuda_ipc.cudart`` when
    the module is imported and asserts that libcudart is already mapped into the process; on a GPU
    host torch has loaded it. ``PassConfig.default_fi_allreduce_fusion_max_size_mb`` imports
    ``flashinfer.comm`` for every TP > 1 launch, so without this every such 0.25.x case is refused
    with "libcudart is not loaded in the current process". Loading the library (no CUDA call is
    made) restores the GPU host's state. Only when the installed flashinfer builds it eagerly
    (0.6.14, vLLM 0.26+, builds it lazily: their measured runs are unchanged)."""
    import ctypes
    import importlib.util

    spec = importlib.util.find_spec("flashinfer")
    if spec is None or not spec.submodule_search_locations:
        return
    ipc = Path(next(iter(spec.submodule_search_locations))) / "comm" / "cuda_ipc.py"
    if not ipc.exists() or "\ncudart = CudaRTLibrary()" not in ipc.read_text():
        return
    path = os.environ.get("VLLM_CUDART_SO_PATH") or next(
        (p for p in _CUDART_CANDIDATES if Path(p).exists()), None
    )
    if path is not None:
        ctypes.CDLL(path)


def run_case(case: dict, workdir: Path) -> dict:
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.usage.usage_lib import UsageContext
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    model_dir = workdir / case["id"]
    model_dir.mkdir(parents=True, exist_ok=True)
    (model_dir / "config.json").write_text(json.dumps(case["config"]))
    saved = dict(os.environ)
    try:
        parser = FlexibleArgumentParser()
        AsyncEngineArgs.add_cli_args(parser)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                ns = parser.parse_args(["--model", str(model_dir), *case["argv"]])
        except SystemExit as exc:  # revision 5: argparse's own message
            text = err.getvalue()
            text = " ".join(text[text.find(": error:") + 2 :].split()) if ": error:" in text else ""
            text = text or f"argparse exit {exc.code}"
            return {"id": case["id"], "error": f"ArgumentError: {text[:2000]}"}
        args = AsyncEngineArgs.from_cli_args(ns)
        cfg = args.create_engine_config(UsageContext.OPENAI_API_SERVER)
        return {"id": case["id"], "values": extract(cfg)}
    except Exception as exc:  # a refusal (or an oracle limit: the comparer classifies)
        return {"id": case["id"], "error": f"{type(exc).__name__}: {str(exc)[:2000]}"}
    finally:
        os.environ.clear()
        os.environ.update(saved)


#: the modules of humming-kernels that vLLM 0.20-0.23 import (``quantization/humming.py`` on CUDA,
#: ``quantization/utils/humming_utils.py``, ``fused_moe/experts/fused_humming_moe.py``)
_HUMMING_MODULES = (
    *("humming", "humming.dtypes", "humming.layer", "humming.schema", "humming.config"),
    *("humming.utils", "humming.utils.weight"),
)


def _stub_humming() -> None:
    """vLLM 0.23 (and below) pins ``humming-kernels`` (the Humming quantization kernels, a CUDA
    build) and imports it when a quantization config is looked up (``get_quantization_config``
    imports every method's module); the oracle venvs do not install it, so without a stub every
    quantized checkpoint fails with "No module named 'humming'" (253 of the first 600 0.23.0 dev
    cases). Configuration never calls a kernel: permissive stubs, only where it is not installed."""
    import importlib.util

    if importlib.util.find_spec("humming") is not None:
        return
    for name in _HUMMING_MODULES:
        oracle._stub(name, permissive=True)


def main() -> None:
    job = json.load(sys.stdin)
    oracle.setup(set(job["kernels"]), job.get("family"))
    _inline_inspection()
    _stub_custom_ops()
    # 0.34's model modules import vllm._cpu_ops, whose fake kernels need ops of vllm._C (absent
    # in this build); the CUDA platform never calls them
    oracle._stub("vllm._cpu_ops", permissive=True)
    _stub_humming()
    _preload_cudart()
    workdir = Path(tempfile.mkdtemp(prefix="vllm-oracle-models-"))
    for group in job["groups"]:
        oracle._reset(group["platform"], group.get("env", {}))
        for case in group["cases"]:
            with contextlib.redirect_stdout(io.StringIO()):
                row = run_case(case, workdir)
            print(json.dumps(row, default=str), flush=True)


if __name__ == "__main__":
    main()
