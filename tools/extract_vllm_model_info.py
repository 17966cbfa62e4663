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
The pack's table (``resolvable/vllm/config/model_info.py``) is written from these files.
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
        }
    json.dump(
        {"release": vllm.__version__, "archs": archs, "failed": failed}, sys.stdout, indent=0, sort_keys=True
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
