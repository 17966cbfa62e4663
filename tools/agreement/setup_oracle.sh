#!/usr/bin/env bash
# Build the sglang oracle venvs under $ORACLE (default /work/oracle) from the released wheels.
# Usage: tools/agreement/setup_oracle.sh [VERSION ...]      (default: 0.5.15 0.5.23; 0.5.5 ... 0.5.9 too)
# 0.5.10 and 0.5.10.post1 differ only in the FlashInfer pin (utils/common.py, entrypoints/engine.py):
# one venv, venv-0.5.10, serves both.
# Idempotent: a venv whose sglang imports is left as it is. Needs network to PyPI (or a local
# index), about 8 GB of disk (torchvision brings torch 2.14.1 with its CUDA libraries), and
# Python 3.11 (the .pth sharing below names python3.11 site-packages).
set -euo pipefail
ORACLE=${ORACLE:-/work/oracle}
WHEELS=${WHEELS:-/work/wheels}
versions=("$@"); [ ${#versions[@]} -eq 0 ] && versions=(0.5.15 0.5.23)
mkdir -p "$ORACLE" "$WHEELS"
SP=lib/python3.11/site-packages

wheel() {  # the sglang wheel of release $1, downloaded once into $WHEELS
  local w; w=$(ls "$WHEELS"/sglang-"$1"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$w" ]; then
    pip download -q --no-deps -d "$WHEELS" "sglang==$1" >&2
    w=$(ls "$WHEELS"/sglang-"$1"-*.whl | head -1)
  fi
  echo "$w"
}

base() {  # venv 0.5.15: the heavy shared dependencies (transformers 5.12.1 line)
  local v=$ORACLE/venv-0.5.15
  # Built already: leave it alone (the pins below would downgrade the torch torchvision brought,
  # under the feet of every venv that shares it through its .pth).
  "$v/bin/python" -c "import sglang.srt.server_args, torch" >/dev/null 2>&1 && return 0
  [ -x "$v/bin/python" ] || python3 -m venv "$v"
  "$v/bin/pip" install -q --no-deps "$(wheel 0.5.15)"
  "$v/bin/pip" install -q torch==2.13.0 transformers==5.12.1
  # what the ServerArgs import/construct path needs (found by import errors); uvicorn and
  # fastapi: dllm/algorithm imports them (else "Unknown diffusion LLM algorithm")
  "$v/bin/pip" install -q orjson psutil pybase64 requests triton pillow starlette torchvision \
      IPython aiohttp pyzmq dill openai partial_json_parser msgspec sentencepiece einops \
      compressed_tensors gguf uvicorn fastapi transformers==5.12.1
}

later() {  # venv of a later release: its wheel alone + a .pth to the shared dependencies
  local ver=$1 v=$ORACLE/venv-$1
  if [ "$ver" = 0.5.8.post1 ]; then   # ServerArgs code identical to 0.5.8's (tools/agreement/README.md)
    later 0.5.8; [ -e "$v" ] || ln -s venv-0.5.8 "$v"; return 0
  fi
  [ -x "$v/bin/python" ] || python3 -m venv "$v"
  case $ver in
    0.5.22|0.5.23)   # transformers 5.19.0 line
      [ "$ver" = 0.5.22 ] && { later 0.5.23; echo "$ORACLE/venv-0.5.23/$SP" > "$v/$SP/zz-a.pth"; }
      if [ "$ver" = 0.5.23 ]; then
        "$v/bin/pip" install -q --no-deps "$(wheel 0.5.23)" transformers==5.19.0 \
            compressed-tensors==0.18.0 'tokenizers>=0.23.1,<0.24' apache-tvm-ffi==0.1.11
      else
        "$v/bin/pip" install -q --no-deps "$(wheel "$ver")"
      fi ;;
    0.5.13|0.5.13.post1|0.5.14)   # transformers 5.8.1 line; their ServerArgs import xgrammar
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")" transformers==5.8.1 xgrammar==0.2.1 \
          apache-tvm-ffi==0.1.9 ;;
    0.5.12|0.5.12.post1)   # transformers 5.6.0 line (the wheels' pins); ServerArgs imports xgrammar
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")" transformers==5.6.0 xgrammar==0.2.0 \
          apache-tvm-ffi==0.1.9 ;;
    0.5.11)   # transformers 5.6.0 too, with its own xgrammar pin
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")" transformers==5.6.0 xgrammar==0.1.32 \
          apache-tvm-ffi==0.1.9 ;;
    0.5.10|0.5.10.post1)   # transformers 5.3.0 line (the wheels' pin); ServerArgs imports xgrammar
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")" transformers==5.3.0 xgrammar==0.1.32 \
          apache-tvm-ffi==0.1.9 ;;
    0.5.9)   # transformers 4.57.1 line (0.5.5-0.5.9 pin it); 4.57 needs huggingface_hub < 1.0
      "$v/bin/pip" install -q --no-deps "$(wheel 0.5.9)" transformers==4.57.1 \
          'tokenizers>=0.22,<0.23' 'huggingface_hub>=0.34,<1.0' xgrammar==0.1.27 ;;
    0.5.6.post1)   # pins transformers 5.0.0rc0 (venv-0.5.15's hub and tokenizers fit it)
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")" transformers==5.0.0rc0 ;;
    0.5.5|0.5.5.post1|0.5.5.post2|0.5.5.post3|0.5.6|0.5.6.post2|0.5.7|0.5.8)   # the 4.57.1 line
      later 0.5.9
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")"
      echo "$ORACLE/venv-0.5.9/$SP" > "$v/$SP/zz-a.pth"
      case $ver in 0.5.5|0.5.5.post1)   # sglang/utils.py reaches bench_serving, which imports datasets
        # (declared by these wheels); no resolver solution under the shared pins: no deps
        "$v/bin/pip" install -q --no-deps datasets==4.8.5 dill multiprocess xxhash ;; esac ;;
    *)
      "$v/bin/pip" install -q --no-deps "$(wheel "$ver")"
      case $ver in 0.5.16|0.5.17|0.5.18|0.5.19|0.5.20)   # their ServerArgs import xgrammar
        "$v/bin/pip" install -q --no-deps xgrammar==0.2.1 apache-tvm-ffi==0.1.11 ;; esac ;;
  esac
  echo "$ORACLE/venv-0.5.15/$SP" > "$v/$SP/zz-oracle-shared-deps.pth"
}

base
for ver in "${versions[@]}"; do
  [ "$ver" = 0.5.15 ] || later "$ver"
  "$ORACLE/venv-$ver/bin/python" -c "import sglang, sglang.srt.server_args as s; print('sglang', sglang.__version__, 'ok')"
done
