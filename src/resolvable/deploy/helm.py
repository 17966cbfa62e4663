"""Helm values files rendered by their chart's rules: vLLM production-stack and llm-d ModelService.

production-stack (``helm/templates/deployment-vllm-multi.yaml`` of vllm-project/production-stack,
read at commit a6c01db0): one vLLM Deployment per ``servingEngineSpec.modelSpec`` entry that is
not ``enabled: false`` and has no enabled ``raySpec``. The container runs ``vllm serve MODEL --host
0.0.0.0 --port PORT`` (``/opt/venv/bin/vllm`` for ``lmcache/vllm-openai`` images), then, in this
order: ``--enable-lora``, ``--enable-auto-tool-choice``, ``--tool-call-parser``; when a
``vllmConfig`` block is present (Go's ``with``: a non-empty map): ``--enable-chunked-prefill`` or
``--no-enable-chunked-prefill`` when the key is set, ``--enable-prefix-caching`` when
``enablePrefixCaching`` is true and ``--no-enable-prefix-caching`` otherwise, ``--max-model-len``,
``--dtype``, ``--tensor-parallel-size``, ``--max-num-seqs``, ``--gpu_memory_utilization``,
``--max_loras``, ``--runner``, ``--convert``, ``extraArgs``; then ``--revision``, LMCache's
``--kv-transfer-config`` and ``--chat-template``. Values pass through Go's ``quote``: Helm reads
numbers as float64, so ``1000000`` is written ``1e+06`` (``go_text``). GPUs: ``requestGPU`` of
``requestGPUType`` (default ``nvidia.com/gpu``).

llm-d ModelService (``modelArtifacts`` + ``decode``/``prefill``): a container with
``modelCommand: vllmServe`` runs ``vllm serve MODEL --port PORT`` + its ``args``; the chart adds
``--tensor-parallel-size`` from ``parallelism.tensor`` and requests ``tensor × data`` GPUs of
``accelerator.type``. (Rendered from the values' documented contract; the chart's helpers were not
read, so the note on each launch says so.)
"""

from __future__ import annotations

from decimal import Decimal

from ._yaml import line_of
from .expand import Scope
from .kubernetes import _env
from .launch import FileLaunch, Node, build
from .node import product_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def go_text(value: Any) -> str:
    """A value as Helm's ``quote`` writes it (Go's ``%v``; numbers were read as float64)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return str(number)
        d = Decimal(repr(number)).normalize()
        exp = d.adjusted()
        if exp < -4 or exp >= 6:  # Go's shortest %g: the exponent form from 1e+06 on
            digits = "".join(str(x) for x in d.as_tuple().digits).rstrip("0") or "0"
            mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
            sign = "-" if number < 0 else ""
            return f"{sign}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
        text = format(d, "f")
        return text
    return "" if value is None else str(value)


def is_production_stack(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("servingEngineSpec"), dict)


def is_modelservice(doc: Any) -> bool:
    return isinstance(doc, dict) and "modelArtifacts" in doc and ("decode" in doc or "prefill" in doc)


def production_stack(doc: Any, file: str) -> list[FileLaunch]:
    engine_spec = doc["servingEngineSpec"]
    if engine_spec.get("enableEngine") is False:
        return []
    out = []
    specs = engine_spec.get("modelSpec") or []
    port = go_text(engine_spec.get("containerPort") or "8000")
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict) or spec.get("enabled") is False:
            continue
        if isinstance(spec.get("raySpec"), dict) and spec["raySpec"].get("enabled"):
            continue  # rendered by the chart's RayCluster template, not this one
        line = line_of(specs, i)
        words: list[tuple[str, int]] = []

        def add(
            *items: str, key: str | None = None, holder: Any = spec, line: int = line, words: list = words
        ) -> None:
            at = line_of(holder, key, line) if key else line
            words.extend((item, at) for item in items)

        repository = str(spec.get("repository") or "")
        add("/opt/venv/bin/vllm" if repository == "lmcache/vllm-openai" else "vllm", "serve")
        add(go_text(spec.get("modelURL")), key="modelURL")
        add("--host", "0.0.0.0", "--port", port)
        if spec.get("enableLoRA"):
            add("--enable-lora", key="enableLoRA")
        if spec.get("enableTool"):
            add("--enable-auto-tool-choice", key="enableTool")
        if spec.get("toolCallParser"):
            add("--tool-call-parser", go_text(spec["toolCallParser"]), key="toolCallParser")
        config = spec.get("vllmConfig")
        if isinstance(config, dict) and config:
            if "enableChunkedPrefill" in config:
                flag = (
                    "--enable-chunked-prefill"
                    if config["enableChunkedPrefill"]
                    else "--no-enable-chunked-prefill"
                )
                add(flag, key="enableChunkedPrefill", holder=config)
            prefix = (
                "--enable-prefix-caching"
                if config.get("enablePrefixCaching")
                else "--no-enable-prefix-caching"
            )
            add(prefix, key="enablePrefixCaching" if "enablePrefixCaching" in config else None, holder=config)
            for key, flag in (("maxModelLen", "--max-model-len"), ("dtype", "--dtype"),
                              ("tensorParallelSize", "--tensor-parallel-size"), ("maxNumSeqs", "--max-num-seqs"),
                              ("gpuMemoryUtilization", "--gpu_memory_utilization"), ("maxLoras", "--max_loras"),
                              ("runner", "--runner"), ("convert", "--convert")):  # fmt: skip
                if key in config:
                    add(flag, go_text(config[key]), key=key, holder=config)
            extra = config.get("extraArgs") or []
            for j, item in enumerate(extra if isinstance(extra, list) else []):
                words.append((go_text(item), line_of(extra, j, line)))
        if spec.get("modelRevision"):
            add("--revision", go_text(spec["modelRevision"]), key="modelRevision")
        lmcache = spec.get("lmcacheConfig")
        if isinstance(lmcache, dict) and lmcache.get("enabled"):
            role = lmcache.get("kvRole") or "kv_both"
            if "enablePD" in lmcache:
                port = go_text(lmcache.get("nixlRole"))
                value = (f'{{"kv_connector":"LMCacheConnectorV1","kv_role":"{role}","kv_connector_extra_config":'
                         f'{{"discard_partial_chunks": false, "lmcache_rpc_port": "{port}"}}}}')  # fmt: skip
            elif isinstance(config, dict) and go_text(config.get("v0")) == "1":
                value = f'{{"kv_connector":"LMCacheConnector","kv_role":"{role}"}}'
            else:
                value = f'{{"kv_connector":"LMCacheConnectorV1","kv_role":"{role}"}}'
            add("--kv-transfer-config", value, key="lmcacheConfig")
        if spec.get("chatTemplate"):
            add("--chat-template", f"/templates/{spec['chatTemplate']}", key="chatTemplate")
        scope = Scope()
        env = _env(engine_spec.get("env"), scope)
        env.update(_env(spec.get("env"), scope))
        if isinstance(config, dict) and go_text(config.get("v0")) == "1":
            env["VLLM_USE_V1"] = "0"
        gpus = spec.get("requestGPU")
        gpus = int(gpus) if isinstance(gpus, (int, float)) or str(gpus).isdigit() else None
        terms = spec.get("nodeSelectorTerms")
        gpu = product_of({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}}) if terms else None  # fmt: skip
        image = f"{repository}:{go_text(spec.get('tag'))}" if repository else None
        out += build(
            image=image, command=[w for w, _ in words], lines=[at for _, at in words], env=env, scope=scope,
            file=file, line=line, node=Node(gpus, 1, gpu),
            source=f"production-stack modelSpec {spec.get('name', i)!s} (rendered as deployment-vllm-multi.yaml does)",
        )  # fmt: skip
    return out


def modelservice(doc: Any, file: str) -> list[FileLaunch]:
    artifacts = doc.get("modelArtifacts") or {}
    model = str(artifacts.get("name") or str(artifacts.get("uri") or "").removeprefix("hf://"))
    port = str(((doc.get("routing") or {}).get("proxy") or {}).get("targetPort") or 8000)
    out = []
    for role in ("prefill", "decode"):
        part = doc.get(role)
        if not isinstance(part, dict) or part.get("create") is False:
            continue
        parallelism = part.get("parallelism") or {}
        tensor = parallelism.get("tensor")
        data = parallelism.get("dataLocal") or parallelism.get("data") or 1
        containers = part.get("containers") or []
        for j, container in enumerate(containers):
            if not isinstance(container, dict):
                continue
            line = line_of(containers, j)
            if container.get("modelCommand") == "vllmServe":
                words = [
                    ("vllm", line),
                    ("serve", line),
                    (model, line_of(doc, "modelArtifacts")),
                    ("--port", line),
                    (port, line),
                ]
            else:
                words = [
                    (str(w), line_of(container.get("command"), k, line))
                    for k, w in enumerate(container.get("command") or [])
                ]
            args = container.get("args") or []
            words += [(str(a), line_of(args, k, line)) for k, a in enumerate(args)]
            if tensor and container.get("modelCommand") == "vllmServe":
                words.append((f"--tensor-parallel-size={tensor}", line_of(parallelism, "tensor", line)))
            scope = Scope()
            env = _env(container.get("env"), scope)
            gpus = int(tensor) * int(data) if str(tensor or "").isdigit() and str(data).isdigit() else None
            out += build(
                image=str(container.get("image")) if container.get("image") else None,
                command=[w for w, _ in words], lines=[at for _, at in words], env=env, scope=scope, file=file,
                line=line, node=Node(gpus, 1, product_of(part)), source=f"llm-d ModelService {role}",
                notes=["rendered from llm-d-modelservice's values contract (modelCommand vllmServe, parallelism)"],
            )  # fmt: skip
    return out
