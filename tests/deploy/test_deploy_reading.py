"""Reading deployment files: the YAML guards, variable expansion, image tags, formats the corpus
has no public example of (Pod, Job), and the one-line errors."""

from __future__ import annotations

import pytest

from resolvable.deploy import DeployError, read, read_text
from resolvable.deploy.expand import Scope, arithmetic, expand_compose, expand_k8s, expand_shell
from resolvable.deploy.helm import go_text
from resolvable.deploy.images import read_image
from resolvable.deploy.node import preset_for
from resolvable.vllm import registry as vllm_registry


def _one_line_error(text: str, name: str = "x.yaml") -> str:
    with pytest.raises(DeployError) as info:
        read_text(text, name)
    message = str(info.value)
    assert "\n" not in message and name in message
    return message


def test_alias_bomb_stops_early():
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, cur in zip("abcdefghi", "bcdefghij"):
        levels.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    assert "aliases are expanded" in _one_line_error("\n".join(levels))


def test_deep_nesting_is_refused():
    assert "nested more than" in _one_line_error("a: " + "[" * 5000 + "]" * 5000)
    assert "nested more than" in _one_line_error(
        "".join(f"{'  ' * i}k{i}:\n" for i in range(200)) + "  " * 200 + "v"
    )


def test_python_tag_is_refused_by_name():
    message = _one_line_error("apiVersion: v1\nkind: Pod\nspec: !!python/object/apply:os.system ['true']\n")
    assert "!!python/object/apply:os.system" in message and "line 3" in message


def test_ten_megabytes_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * (10 * 1024 * 1024))
    with pytest.raises(DeployError, match="larger than 4 MiB"):
        read(str(path))


def test_invalid_yaml_and_no_launch():
    assert "not valid YAML at line" in _one_line_error("a: [\n")
    assert "no engine launch found" in _one_line_error("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")


def test_kubernetes_expansion():
    scope = Scope({"A": "1"})
    assert expand_k8s("--x=$(A) $$(A) $(B)", scope) == "--x=1 $(A) $(B)"
    assert scope.runtime == {"B": "not defined in the file"}


def test_compose_expansion():
    scope = Scope()
    assert expand_compose("${TP:-2} $${X} ${PORT-8000} ${MODEL}", scope) == "2 ${X} 8000 ${MODEL}"
    assert list(scope.runtime) == ["MODEL"]


def test_shell_expansion_and_arithmetic():
    scope = Scope({"N": "8", "G": "2"}, {"IDX": "set by the controller"})
    assert (
        expand_shell("--dp $((G * N)) '$N' \"$N\" ${M:-4} ${IDX:-0}", scope)
        == "--dp 16 '$N' \"8\" 4 ${IDX:-0}"
    )
    assert expand_shell('${N:+--tp "$N"} ${R:+--revision "$R"}', scope) == '--tp "8" '
    assert arithmetic("(N + 2) / 3 - G % 2", scope) == 3
    assert arithmetic("N ** 99", scope) is None  # not shell arithmetic: never evaluated
    assert arithmetic("IDX * N", scope) is None and "IDX" in scope.runtime


def test_helm_writes_numbers_as_go_does():
    assert [go_text(v) for v in (4096, 131072, 1000000, 0.9, True, "x")] == [
        "4096",
        "131072",
        "1e+06",
        "0.9",
        "true",
        "x",
    ]


@pytest.mark.parametrize(
    ("ref", "engine", "release", "pinned"),
    [
        ("vllm/vllm-openai:v0.34.0", "vllm", "0.34.0", True),
        ("docker.io/lmsysorg/sglang:v0.5.20-rocm700-mi30x", "sglang", "0.5.20", True),
        (
            "lmsysorg/sglang:v0.5.5.post3-cu129-amd64",
            "sglang",
            "0.5.5.post3",
            True,
        ),  # resolved as a release of its own
        ("lmsysorg/sglang:v0.5.5.post2-cu129-amd64", "sglang", "0.5.5.post2", True),
        ("lmsysorg/sglang:v0.5.5.post1-cu129-amd64", "sglang", "0.5.5.post1", True),
        ("lmsysorg/sglang:v0.5.5-cu129-amd64", "sglang", "0.5.5", True),
        ("lmsysorg/sglang:v0.5.10.post1-cu129-amd64", "sglang", "0.5.10", True),  # resolved as its base
        ("vllm/vllm-openai:latest", "vllm", "0.34.0", False),
        ("vllm/vllm-openai", "vllm", "0.34.0", False),
        ("lmcache/vllm-openai:v0.3.9post2", "vllm", None, True),
        ("ghcr.io/llm-d/llm-d-cuda:v0.5.0", "vllm", None, True),
        ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513", "vllm", "0.8.5", True),
    ],
)
def test_image_tags(ref, engine, release, pinned):
    image = read_image(ref)
    assert (image.engine, image.release, image.pinned) == (engine, release, pinned)


def test_image_variants_and_ranges():
    assert read_image("lmsysorg/sglang:v0.5.20-rocm700-mi30x").platform_hint == "hip"
    assert read_image("lmsysorg/sglang:v0.5.20-xpu").platform_hint == "xpu"
    old = read_image("vllm/vllm-openai:v0.9.1")
    assert (
        not old.modelled
        and old.nearest == vllm_registry.releases[0]
        and "outside the modelled range" in old.release_from
    )


def test_gpu_products_to_presets():
    assert preset_for("NVIDIA-H100-80GB-HBM3") == "h100"
    assert preset_for("nvidia-tesla-a100") == "a100-40g" and preset_for("nvidia-a100-80gb") == "a100"
    assert preset_for("p5.48xlarge") == "h100" and preset_for("nvidia-l4") == "l4"
    assert preset_for("something-else") is None


def test_pod_and_job_and_compose_gpus():
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: s
    image: lmsysorg/sglang:v0.5.20-cu129
    command: [python3, -m, sglang.launch_server, --model-path, qwen3-8b, --tp, "2"]
    resources: {limits: {amd.com/gpu: 2}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers:
      - name: v
        image: vllm/vllm-openai:v0.33.0
        args: ["--model", "qwen3-8b"]
"""
    first, second = read_text(pod, "pod.yaml")
    assert first.argv[-2:] == ("--tp-size", "2") and first.gpus_per_node == 2 and first.release == "0.5.20"
    assert second.argv == ("vllm", "serve", "--model", "qwen3-8b") and second.gpus_per_node is None
    compose = "services:\n  v:\n    image: vllm/vllm-openai:${TAG:-v0.32.0}\n    command: --model ${M:-qwen3-8b}\n    gpus: all\n"
    (launch,) = read_text(compose, "docker-compose.yaml")
    assert launch.release == "0.32.0" and launch.model == "qwen3-8b" and launch.gpus_per_node == "all"


def test_kserve_eval_expands_additional_args_twice():
    text = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: x}
spec:
  model: {uri: "hf://Qwen/Qwen3-8B", name: Qwen/Qwen3-8B}
  parallelism: {tensor: 2}
  template:
    containers:
    - name: main
      env:
      - {name: VLLM_ADDITIONAL_ARGS, value: "--max-model-len 4096 --kv-cache-dtype fp8"}
"""
    (launch,) = read_text(text, "llmisvc.yaml")
    assert launch.argv[-6:] == (
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "4096",
        "--kv-cache-dtype",
        "fp8",
    )


def test_kserve_inferenceservice_custom_predictor_container():
    text = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama}
spec:
  predictor:
    nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.31.0
      args: [--model, qwen3-8b, --port, "8080"]
      resources: {limits: {nvidia.com/gpu: "1"}}
"""
    (launch,) = read_text(text, "isvc.yaml")
    assert launch.source == "InferenceService/llama.predictor container kserve-container"
    assert (launch.release, launch.gpu, launch.gpus_per_node) == ("0.31.0", "NVIDIA-L4", 1)
    assert launch.argv[:2] == ("vllm", "serve")
