"""Launches in Kubernetes objects: Pod, Deployment, StatefulSet, ReplicaSet, DaemonSet, Job,
CronJob, LeaderWorkerSet, KServe (ServingRuntime, ClusterServingRuntime, InferenceService,
LLMInferenceService), SGLang OME runtimes (``ome.io``) and any other object that embeds a pod
template (AIBrix's StormService, a RayCluster …): every container whose command starts an engine.

Invariants:

* ``$(VAR)`` in ``command``/``args`` is expanded from the container's ``env`` (Kubernetes'
  rule: entries defined earlier) and from what the controller injects: LeaderWorkerSet's
  ``LWS_GROUP_SIZE`` (the group size) is known from the file, ``LWS_LEADER_ADDRESS`` and
  ``LWS_WORKER_INDEX`` only at run time; OME's ``MODEL_PATH`` and ``PARALLELISM_SIZE`` are computed
  by its controller (run time); a ``valueFrom`` entry is run time;
* ``nodes`` is a LeaderWorkerSet's group size (``leaderWorkerTemplate.size``), an OME runtime's
  leader + workers, else 1;
* KServe's LLMInferenceService has no command: its template (``config-llm-decode-template``)
  runs ``vllm serve /mnt/models --served-model-name NAME --port 8001 [--tensor-parallel-size N]``
  and ``eval``s ``${VLLM_ADDITIONAL_ARGS}`` after it; that is the argv reported.
"""

from __future__ import annotations

from ._yaml import DeployError, LMap, line_of
from .expand import Scope, expand_k8s
from .launch import FileLaunch, Node, build
from .node import gpus_of, product_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WORKLOADS = ("Pod", "Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob")
_LWS_RUNTIME = {
    "LWS_LEADER_ADDRESS": "the LeaderWorkerSet controller sets the leader's address at run time",
    "LWS_WORKER_INDEX": "the LeaderWorkerSet controller sets each pod's index at run time",
}
_OME_RUNTIME = {
    "MODEL_PATH": "the OME controller sets the model's path at run time",
    "PARALLELISM_SIZE": "the OME controller computes the parallelism from the model at run time",
}
_LLMISVC_IMAGE = "ghcr.io/llm-d/llm-d-cuda"


def is_kubernetes(doc: Any) -> bool:
    return isinstance(doc, dict) and "kind" in doc and "apiVersion" in doc


def launches(docs: list[Any], file: str) -> list[FileLaunch]:
    out: list[FileLaunch] = []
    for doc in docs:
        if not is_kubernetes(doc):
            continue
        kind, api = str(doc.get("kind")), str(doc.get("apiVersion"))
        name = str((doc.get("metadata") or {}).get("name") or "")
        spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
        where = f"{kind}/{name}"
        if kind == "LeaderWorkerSet":
            out += _lws(spec, file, where)
        elif api.startswith("ome.io/"):
            out += _ome(spec, file, where)
        elif kind == "LLMInferenceService":
            out += _llmisvc(spec, file, where)
        else:
            for pod_spec, label in _pod_specs(spec, kind):
                out += pod_launches(pod_spec, file, f"{where}{label}", Scope(), 1)
    return out


def _pod_specs(spec: Any, kind: str) -> list[tuple[Any, str]]:
    """Every pod spec (a mapping with a ``containers`` list) inside an object's spec."""
    if kind == "Pod":
        return [(spec, "")]
    found: list[tuple[Any, str]] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if depth > 12:
            return
        if isinstance(value, dict):
            if isinstance(value.get("containers"), list):
                found.append((value, path))
                return
            for key, item in value.items():
                walk(item, f"{path}.{key}" if key not in ("spec", "template") else path, depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                label = item.get("name") if isinstance(item, dict) and item.get("name") else str(i)
                walk(item, f"{path}[{label}]", depth + 1)

    walk(spec, "", 0)
    return found


def pod_launches(pod_spec: Any, file: str, where: str, scope: Scope, nodes: int) -> list[FileLaunch]:
    out = []
    gpu = product_of(pod_spec)
    for container in pod_spec.get("containers") or []:
        if isinstance(container, dict):
            out += container_launches(container, file, where, scope.copy(), Node(None, nodes, gpu))
    return out


def container_launches(
    container: Any, file: str, where: str, scope: Scope, node: Node, *, extra: list[str] | None = None
) -> list[FileLaunch]:
    env = _env(container.get("env"), scope)
    words, lines = [], []
    for key in ("command", "args"):
        items = container.get(key)
        if isinstance(items, str):
            items = [items]
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            words.append(expand_k8s(str(item), scope))
            lines.append(line_of(items, i, line_of(container, key)))
    for word in extra or []:
        words.append(word)
        lines.append(line_of(container, "name"))
    node.gpus_per_node = gpus_of(container.get("resources"))
    notes = []
    if container.get("envFrom"):
        notes.append("envFrom: variables from a ConfigMap or Secret are known at run time only")
    return build(
        image=str(container["image"]) if container.get("image") else None,
        command=words,
        lines=lines,
        env=env,
        scope=scope,
        file=file,
        line=line_of(container, "image", getattr(container, "line", 0)) or getattr(container, "line", 0),
        node=node,
        source=f"{where} container {container.get('name', '?')}",
        notes=notes,
    )


def _env(entries: Any, scope: Scope) -> dict[str, str]:
    env: dict[str, str] = {}
    for entry in entries or []:
        if not isinstance(entry, dict) or "name" not in entry:
            continue
        name = str(entry["name"])
        if "value" in entry and entry["value"] is not None:
            value = entry["value"]
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            env[name] = expand_k8s(text, scope)
            scope.values[name] = env[name]
            scope.runtime_only.pop(name, None)
        elif "valueFrom" in entry:
            scope.runtime_only[name] = "set from a fieldRef, ConfigMap or Secret at run time"
    return env


def _lws(spec: Any, file: str, where: str) -> list[FileLaunch]:
    template = spec.get("leaderWorkerTemplate") or {}
    size = template.get("size", 1)
    size = int(size) if str(size).isdigit() else 1
    scope = Scope({"LWS_GROUP_SIZE": str(size)}, dict(_LWS_RUNTIME))
    out = []
    roles = [("leaderTemplate", " leader"), ("workerTemplate", " worker")]
    if not template.get("leaderTemplate"):
        roles = [("workerTemplate", "")]
    for key, label in roles:
        pod = ((template.get(key) or {}).get("spec")) or {}
        out += pod_launches(pod, file, f"{where}{label}", scope, size)
    return out


def _ome(spec: Any, file: str, where: str) -> list[FileLaunch]:
    out = []
    for part in ("engineConfig", "decoderConfig"):
        config = spec.get(part)
        if not isinstance(config, dict):
            continue
        leader, worker = config.get("leader"), config.get("worker")
        nodes = 1
        if isinstance(worker, dict):
            size = worker.get("size", 1)
            nodes = 1 + (int(size) if str(size).isdigit() else 1)
        gpu = product_of(config)
        for label, holder in (("", config), (" leader", leader), (" worker", worker)):
            runner = holder.get("runner") if isinstance(holder, dict) else None
            if isinstance(runner, dict):
                scope = Scope({}, dict(_OME_RUNTIME))
                out += container_launches(
                    runner, file, f"{where} {part}{label}", scope, Node(None, nodes, gpu)
                )
    return out


def _llmisvc(spec: Any, file: str, where: str) -> list[FileLaunch]:
    model = spec.get("model") or {}
    name = str(model.get("name") or "")
    uri = str(model.get("uri") or "")
    out = []
    for label, part in (("", spec), (" prefill", spec.get("prefill"))):
        if not isinstance(part, dict):
            continue
        template = part.get("template") or {}
        containers = [c for c in template.get("containers") or [] if isinstance(c, dict)]
        main = next((c for c in containers if c.get("name") == "main"), None)
        if main is None:
            if label:
                continue
            raise DeployError(f"{file}: {where} has no container named 'main' in spec.template; add it")
        tensor = ((part.get("parallelism") or spec.get("parallelism") or {}) or {}).get("tensor")
        command = [
            "vllm",
            "serve",
            "/mnt/models",
            "--served-model-name",
            name or "(the model's name)",
            "--port",
            "8001",
        ]
        if tensor:
            command += ["--tensor-parallel-size", str(tensor)]
        scope = Scope()
        env = _env(main.get("env"), scope)
        extra = env.get("VLLM_ADDITIONAL_ARGS", "")
        script = " ".join(command) + (" ${VLLM_ADDITIONAL_ARGS}" if extra else "")
        container = LMap(main)
        container.lines, container.vlines = dict(getattr(main, "lines", {})), {}
        container.line = getattr(main, "line", 0)
        container.setdefault("image", f"{_LLMISVC_IMAGE}:latest")
        container["command"] = ["/bin/bash", "-c", script]
        container.pop("env", None)
        launched = container_launches(
            container, file, f"{where}{label}", Scope(env), Node(None, 1, product_of(template))
        )
        for launch in launched:
            notes = [
                *launch.notes,
                "the command is KServe's LLMInferenceService template (vllm serve /mnt/models …)",
            ]
            if "image" not in main:
                notes.append("no image: KServe's default llm-d image, whose vLLM release is not in the file")
            out.append(_with(launch, model=uri.removeprefix("hf://") or name or None, notes=tuple(notes),
                             env={**launch.env, **{k: v for k, v in env.items() if k.startswith("VLLM_")}}))  # fmt: skip
    return out


def _with(launch: FileLaunch, **changes: Any) -> FileLaunch:
    from dataclasses import replace

    return replace(launch, **changes)
