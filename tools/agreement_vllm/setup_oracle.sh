#!/usr/bin/env bash
# Build the vLLM oracle venvs (releases 0.20.0 ... 0.34.0) used by tools/agreement_vllm and
# tools/agreement_vllm_config. Idempotent: an existing venv is kept (delete it to rebuild).
#
#   bash tools/agreement_vllm/setup_oracle.sh            # every release
#   bash tools/agreement_vllm/setup_oracle.sh 0.34.0     # one release
#
# Layout (ROOT defaults to /work/oracle-vllm, WHEELS to /work/wheels, the shared wheel cache):
#   ROOT/base     the heavy dependencies once: torch 2.13.0 CPU build, transformers, triton, ...
#   ROOT/vV       the release's vllm wheel (--no-deps) + flashinfer-python at its pin (--no-deps),
#                 and a .pth file that puts ROOT/base's site-packages after its own
# About 2.3 GB for base and 0.7-1.4 GB per release (8-9 GB in all). No GPU, no CUDA libraries.
#
# Deviations from the wheels' pins, on purpose (vllm-config-spec.md §10): one torch (2.13.0 CPU,
# the pin of 0.30-0.32; 0.33/0.34 pin 2.14.0 with CUDA, several GB) and one transformers (5.20.x,
# inside every release's range: >=5.16.1,<5.21 for 0.33, <5.23 for 0.34, >=5.10.4 for 0.30); the
# GPU-only packages (torchvision/torchaudio/opencv, cutlass-dsl, tilelang, quack, humming,
# tokenspeed-mla, cudnn-frontend) are left out and the oracles stub what they import. 0.34.0 pins
# flashinfer-python 0.7.3, which the registry does not serve: 0.7.4 stands in.
set -euo pipefail

ROOT=${ROOT:-/work/oracle-vllm}
WHEELS=${WHEELS:-/work/wheels}
RELEASES=("$@")
[ ${#RELEASES[@]} -eq 0 ] && RELEASES=(0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.27.1 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0 0.34.0)
PY=${PYTHON:-python3}

mkdir -p "$ROOT" "$WHEELS"
cd "$ROOT"
echo 'torch==2.13.0' > constraints.txt

if [ ! -x base/bin/python ]; then
  "$PY" -m venv base
  base/bin/pip install -q torch==2.13.0
  # what `import vllm` + EngineArgs + the selector and config modules import (found by import
  # errors on 0.30-0.34), within every release's range
  base/bin/pip install -q -c constraints.txt \
    regex cachetools psutil sentencepiece numpy 'requests>=2.33' tqdm blake3 py-cpuinfo \
    'transformers>=5.16.1,<5.21' 'tokenizers>=0.23.3' 'safetensors>=0.6.2' protobuf \
    'fastapi<0.137' starlette aiohttp openai 'pydantic>=2.12' orjson prometheus_client pillow \
    prometheus-fastapi-instrumentator tiktoken lark typing_extensions partial-json-parser \
    jsonschema pyzmq msgspec mistral_common pyyaml einops 'compressed-tensors==0.17.0' \
    cloudpickle watchfiles python-json-logger ninja pybase64 cbor2 ijson setproctitle triton \
    'apache-tvm-ffi==0.1.11' openai-harmony oss-harmony uvloop uvicorn 'xgrammar==0.2.8' \
    nvidia-ml-py 'llguidance>=1.7,<1.8' 'outlines_core==0.2.14' 'lm-format-enforcer==0.11.3'
  # transformers' image utilities and the multimodal model classes import torchvision; the
  # registry's build is a CUDA one whose ops do not load here (the oracles define the two op
  # schemas its import needs, oracle._torchvision_ops)
  base/bin/pip install -q --no-deps -c constraints.txt torchvision==0.28.0
fi
SITE=$(base/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

for v in "${RELEASES[@]}"; do
  whl=$(ls "$WHEELS"/vllm-"$v"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ]; then
    pip download -q --no-deps "vllm==$v" -d "$WHEELS"
    whl=$(ls "$WHEELS"/vllm-"$v"-*.whl | head -1)
  fi
  if [ ! -x "v$v/bin/python" ]; then
    "$PY" -m venv "v$v"
    "v$v/bin/pip" install -q --no-deps "$whl"
    fi_pin=$(unzip -p "$whl" "vllm-$v.dist-info/METADATA" | sed -n 's/^Requires-Dist: flashinfer-python==//p')
    [ "$fi_pin" = 0.7.3 ] && fi_pin=0.7.4
    "v$v/bin/pip" install -q --no-deps "flashinfer-python==$fi_pin"
    # 0.20-0.23 import gguf at start-up (transformers_utils/gguf_utils.py; a pure-Python package
    # whose own dependencies are in base)
    gguf_pin=$(unzip -p "$whl" "vllm-$v.dist-info/METADATA" | sed -n 's/^Requires-Dist: gguf//p' | head -1)
    [ -n "$gguf_pin" ] && "v$v/bin/pip" install -q --no-deps "gguf$gguf_pin"
    vsite=$("v$v/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$SITE" > "$vsite/zz-oracle-shared-deps.pth"
  fi
  # smoke test: the release imports and Triton is seen (0.30-0.33 pick other defaults without it);
  # torchvision's compiled ops (a CUDA build) do not load: define the two schemas its import
  # registers fake kernels for, as the oracles do (oracle._torchvision_ops)
  CUDA_VISIBLE_DEVICES= "v$v/bin/python" -c "
import torch
lib = torch.library.Library('torchvision', 'DEF')
for name in ('nms', 'qnms'):
    lib.define(name + '(Tensor dets, Tensor scores, float iou_threshold) -> Tensor')
import vllm, vllm.triton_utils as t
from vllm.engine.arg_utils import EngineArgs
assert vllm.__version__ == '$v', vllm.__version__
assert t.HAS_TRITON
print('vllm', vllm.__version__, 'ok')"
done
du -sh "$ROOT"
