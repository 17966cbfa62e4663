"""Real, published `vllm serve` launches (issue 17 acceptance), each with where it was published.

Each entry is the command as its page shows it (line breaks and `\\` continuations included, a
shell variable only where the page defines it just above), the platform preset of the hardware
the page names, and what resolvable answers: accepted, or refused by a rule with vLLM's message
(the CUDA `--block-size 1` launch for DeepSeek MLA is refused — no CUDA MLA backend takes block
size 1 — while the same flag on MI300X is what ROCM_AITER_MLA_SPARSE wants, as the page says).
The models resolve offline: hub ids of bundled samples (or of a checkpoint whose config.json is
the sample's, `same_config_as` in the catalog).
"""

from __future__ import annotations

from collections import namedtuple

Case = namedtuple("Case", "source platform command outcome needle", defaults=("accepted", None))

RECIPES_DSV3 = "https://docs.vllm.ai/projects/recipes/en/latest/DeepSeek/DeepSeek-V3.html"
QWEN_DOCS = "https://qwen.readthedocs.io/en/stable/deployment/vllm.html"
RECIPES_QWEN3_NEXT = "https://docs.vllm.ai/projects/recipes/en/latest/Qwen/Qwen3-Next.html"
RECIPES_GPT_OSS = "https://github.gg22.workers.dev/GoldenGrapeGentleman/recipes/blob/main/OpenAI/GPT-OSS.md"
GPT_OSS_GUIDE = "https://hochej.github.io/pi-mono/pods/gpt-oss"
RECIPES_MINIMAX = "https://docs.vllm.com.cn/projects/recipes/en/latest/MiniMax/MiniMax-M2.html"
LLAMA4_BLOG = "https://blog.vllm.ai/2025/04/05/llama4.html"
LLAMA4_BLOG_SOURCE = (
    "https://gitea.cncfstack.com/vLLM/vllm-project.github.io/src/commit/"
    "dcfdf596c18b7aec901bef2bd42f0934aac292d5/_posts/2025-04-05-llama4.md?display=source"
)
RECIPES_DSV32_AMD = (
    "https://github-users.yhajoa.workers.dev/haic0/recipes-AMD/blob/main/DeepSeek/DeepSeek-V3_2.md"
)
VULTR_CUDA = "https://docs.vultr.com/inference-cookbook/cuda/model-guides/deepseek-v32"
VULTR_ROCM = "https://docs.vultr.com/inference-cookbook/rocm/model-guides/deepseek-V3-2"
RECIPES_QWEN35 = "https://recipes.vllm.ai/Qwen/Qwen3.5-397B-A17B"
MINIMAX_GUIDE_CN = "https://huggingface.co/MiniMaxAI/MiniMax-M2/raw/main/docs/vllm_deploy_guide_cn.md"

CORPUS = (
    Case(
        RECIPES_DSV3,
        "h200",
        "vllm serve deepseek-ai/DeepSeek-R1-0528 \\\n  --trust-remote-code \\\n  --tensor-parallel-size 8 \\\n"
        "  --enable-expert-parallel",
    ),
    Case(
        RECIPES_DSV3,
        "h200",
        "vllm serve deepseek-ai/DeepSeek-R1-0528 \\\n  --trust-remote-code \\\n  --data-parallel-size 8 \\\n"
        "  --enable-expert-parallel",
    ),
    Case(QWEN_DOCS, "h100", "vllm serve Qwen/Qwen3-8B"),
    Case(QWEN_DOCS, "h100", "export VLLM_USE_MODELSCOPE=true\nvllm serve Qwen/Qwen3-8B"),
    Case(QWEN_DOCS, "h100", "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4"),
    Case(
        RECIPES_QWEN3_NEXT,
        "h200",
        "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \\\n  --tensor-parallel-size 4 \\\n"
        "  --served-model-name qwen3-next \\\n  --enable-prefix-caching",
    ),
    Case(
        "https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/discussions",
        "h200",
        'vllm serve "Qwen/Qwen3-Next-80B-A3B-Instruct"',
    ),
    Case(RECIPES_GPT_OSS, "a100", "vllm serve openai/gpt-oss-20b"),
    Case(RECIPES_GPT_OSS, "a100", "vllm serve openai/gpt-oss-120b"),
    Case(RECIPES_GPT_OSS, "a100", "vllm serve openai/gpt-oss-120b --tensor-parallel-size 2"),
    Case(RECIPES_GPT_OSS, "a100", "vllm serve openai/gpt-oss-120b --tensor-parallel-size 4"),
    Case(
        RECIPES_GPT_OSS,
        "h100",
        "docker run --gpus all \\\n    -p 8000:8000 \\\n    --ipc=host \\\n    vllm/vllm-openai \\\n"
        "    --model openai/gpt-oss-20b",
    ),
    Case(
        GPT_OSS_GUIDE,
        "h100",
        "docker run --gpus all \\\n-p 8000:8000 \\\n--ipc=host \\\nvllm/vllm-openai:gptoss \\\n--model openai/gpt-oss-20b",
    ),
    Case(
        "https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/",
        "a100",
        "vllm serve openai/gpt-oss-20b --port 10000 --max-model-len 131072  --gpu-memory-utilization 0.65 "
        "--trust-remote-code",
    ),
    Case(
        "https://huggingface.co/shahidul034/readCtrl_lambda/blob/main/code/text_classifier/bn/s.sh",
        "h100",
        "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0 vllm serve meta-llama/Llama-3.1-8B-Instruct \\\n"
        "--port 4090 \\\n--served-model-name dspy \\\n--dtype bfloat16 \\\n--tensor-parallel-size 1\n"
        "--max-model-len 16384",
    ),
    Case(
        RECIPES_MINIMAX,
        "h200",
        "vllm serve MiniMaxAI/MiniMax-M2 \\\n--tensor-parallel-size 4 \\\n--tool-call-parser minimax_m2 \\\n"
        "--reasoning-parser minimax_m2_append_think \\\n--enable-auto-tool-choice",
    ),
    Case(
        RECIPES_MINIMAX,
        "h200",
        "vllm serve MiniMaxAI/MiniMax-M2 \\\n--data-parallel-size 8 \\\n--enable-expert-parallel \\\n"
        "--tool-call-parser minimax_m2 \\\n--reasoning-parser minimax_m2_append_think \\\n--enable-auto-tool-choice",
    ),
    Case(
        LLAMA4_BLOG,
        "h100",
        "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct \\\n  --tensor-parallel-size 8 \\\n"
        "  --max-model-len 1000000",
    ),
    Case(
        LLAMA4_BLOG,
        "h200",
        "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct \\\n  --tensor-parallel-size 8 \\\n"
        "  --max-model-len 3600000",
    ),
    Case(
        LLAMA4_BLOG_SOURCE,
        "h100",
        "VLLM_DISABLE_COMPILE_CACHE=1 vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct \\\n"
        "--tensor-parallel-size 8 \\\n"
        "--max-model-len 1000000 --override-generation-config='{\"attn_temperature_tuning\": true}'",
    ),
    Case(
        RECIPES_DSV32_AMD,
        "h200",
        "vllm serve deepseek-ai/DeepSeek-V3.2 \\\n--tensor-parallel-size 8 \\\n--tokenizer-mode deepseek_v32 \\\n"
        "--tool-call-parser deepseek_v32 \\\n--enable-auto-tool-choice \\\n--reasoning-parser deepseek_v3",
    ),
    Case(
        "https://huggingface.co/deepseek-ai/DeepSeek-V3.2/discussions/4",
        "b200",
        'vllm serve "deepseek-ai/DeepSeek-V3.2"',
    ),
    Case(
        VULTR_CUDA,
        "b200",
        "$ vllm serve deepseek-ai/DeepSeek-V3-0324 \\\n  --tensor-parallel-size 8 \\\n  --max-model-len 32768 \\\n"
        "  --gpu-memory-utilization 0.90 \\\n  --trust-remote-code \\\n  --quantization fp8 \\\n  --block-size 1",
        "refused",
        "block_size not supported",
    ),
    Case(
        VULTR_ROCM,
        "mi300x",
        "docker run --rm \\\n  --group-add=video \\\n  --cap-add=SYS_PTRACE \\\n  --security-opt seccomp=unconfined \\\n"
        "  --device /dev/kfd \\\n  --device /dev/dri \\\n  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
        '  --env "HF_TOKEN=$HF_TOKEN" \\\n  --env "VLLM_ROCM_USE_AITER=1" \\\n  --env "AITER_ENABLE_VSKIP=0" \\\n'
        "  -p 8000:8000 \\\n  --ipc=host \\\n  vllm/vllm-openai-rocm:latest \\\n  --model deepseek-ai/DeepSeek-V3.2 \\\n"
        "  --tensor-parallel-size 8 \\\n  --block-size 1 \\\n  --quantization fp8",
    ),
    Case(
        VULTR_ROCM,
        "mi300x",
        "docker run --rm \\\n  --group-add=video \\\n  --cap-add=SYS_PTRACE \\\n  --security-opt seccomp=unconfined \\\n"
        "  --device /dev/kfd \\\n  --device /dev/dri \\\n  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
        '  --env "HF_TOKEN=$HF_TOKEN" \\\n  --env "VLLM_ROCM_USE_AITER=1" \\\n  --env "AITER_ENABLE_VSKIP=0" \\\n'
        "  -p 8000:8000 \\\n  --ipc=host \\\n  vllm/vllm-openai-rocm:latest \\\n  --model deepseek-ai/DeepSeek-V3.2 \\\n"
        "  --tensor-parallel-size 8 \\\n  --block-size 1 \\\n  --quantization fp8 \\\n"
        "  --tokenizer-mode deepseek_v32 \\\n  --tool-call-parser deepseek_v32 \\\n  --enable-auto-tool-choice \\\n"
        "  --reasoning-parser deepseek_v3",
    ),
    Case(
        "https://www.cnblogs.com/isLinXu/p/19135744",
        "h100",
        "MODEL_ID=Qwen/Qwen3-VL-30B-A3B-Instruct\nMODEL_NAME=Qwen3-VL-30B-A3B-Instruct\n"
        "python3 -m vllm.entrypoints.openai.api_server \\\n  --model  $MODEL_ID \\\n"
        "  --served-model-name $MODEL_NAME \\\n  --tensor-parallel-size 8 \\\n  --mm-encoder-tp-mode data \\\n"
        "  --limit-mm-per-prompt.video 0 \\\n  --mm-processor-cache-type shm \\\n  --enable-expert-parallel \\\n"
        "  --host 0.0.0.0 \\\n  --port 22002 \\\n  --dtype bfloat16 \\\n  --gpu-memory-utilization 0.75 \\\n"
        "  --quantization fp8 \\\n  --distributed-executor-backend mp",
    ),
    Case(
        "https://huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/LICENSE",
        "h200",
        'vllm serve "moonshotai/Kimi-K2-Instruct"',
    ),
    Case(
        "https://huggingface.co/zai-org/GLM-5/blob/refs%2Fpr%2F18/chat_template.jinja",
        "b200",
        'vllm serve "zai-org/GLM-5"',
    ),
    Case(
        "https://huggingface.co/google/gemma-4-31B-it/discussions/111",
        "h100",
        'vllm serve "google/gemma-4-31B-it"',
    ),
    Case(
        RECIPES_QWEN35,
        "h200",
        "docker run --gpus all \\\n  -p 8000:8000 \\\n  --ipc=host \\\n"
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n  vllm/vllm-openai Qwen/Qwen3.5-397B-A17B \\\n"
        "    --tensor-parallel-size 8 \\\n    --reasoning-parser qwen3 \\\n    --enable-prefix-caching",
    ),
    Case(
        MINIMAX_GUIDE_CN,
        "h200",
        "SAFETENSORS_FAST_GPU=1 vllm serve \\\n    MiniMaxAI/MiniMax-M2 --trust-remote-code \\\n"
        "    --tensor-parallel-size 4 \\\n    --enable-auto-tool-choice --tool-call-parser minimax_m2 \\\n"
        "    --reasoning-parser minimax_m2_append_think",
    ),
    Case(
        MINIMAX_GUIDE_CN,
        "h200",
        "SAFETENSORS_FAST_GPU=1 vllm serve \\\n    MiniMaxAI/MiniMax-M2 --trust-remote-code \\\n"
        "    --enable_expert_parallel --tensor-parallel-size 8 \\\n"
        "    --enable-auto-tool-choice --tool-call-parser minimax_m2 \\\n    --reasoning-parser minimax_m2_append_think",
    ),
    Case(
        "https://huggingface.co/a2s-ai/MiniMax-M2-AWQ/blob/main/docs/vllm_deploy_guide_cn.md",
        "h200",
        "SAFETENSORS_FAST_GPU=1 VLLM_USE_V1=0 vllm serve \\\n    --model MiniMaxAI/MiniMax-M2 \\\n"
        "    --trust-remote-code \\\n    --enable-expert-parallel --tensor-parallel-size 4 \\\n"
        "    --enable-auto-tool-choice --tool-call-parser minimax_m2 \\\n    --reasoning-parser minimax_m2",
    ),
)
