"""The node a launch is scheduled on, read from machine-readable fields only.

* GPUs per node: a container's ``resources`` (``limits`` first, then ``requests``) count of
  ``nvidia.com/gpu``, ``amd.com/gpu``, ``gpu.intel.com/i915``, ``gpu.intel.com/xe``,
  ``habana.ai/gaudi`` or ``google.com/tpu``; Compose's device reservations (``count: all`` →
  ``"all"``); None when no such field holds it (a DRA claim, another object);
* the GPU product: node labels in ``nodeSelector`` or required node affinity
  (``nvidia.com/gpu.product``, ``cloud.google.com/gke-accelerator``,
  ``node.kubernetes.io/instance-type``, ``karpenter.k8s.aws/instance-gpu-name``, ``amd.com/gpu.product``);
* ``preset_for(product)`` maps a product or an instance type to a platform preset name by a
  table of published names (never a guess from a substring of something else); None when unknown.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GPU_RESOURCES = (
    "nvidia.com/gpu",
    "amd.com/gpu",
    "gpu.intel.com/i915",
    "gpu.intel.com/xe",
    "habana.ai/gaudi",
    "google.com/tpu",
)
PRODUCT_LABELS = (
    "nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "amd.com/gpu.product",
    "karpenter.k8s.aws/instance-gpu-name", "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
)  # fmt: skip

#: (pattern over the lower-cased product or instance type, preset). First match wins.
_PRESETS = (
    (r"gb200|b200|a4-highgpu", "b200"), (r"gb300|b300", "b300"),
    (r"h200|p5e\.|p5en\.|a3-ultragpu", "h200"), (r"h100.*pcie", "h100-pcie"),
    (r"h100|p5\.|a3-(high|mega|edge)gpu", "h100"), (r"\bh20\b|-h20$", "h20"),
    (r"a100.*40|tesla-a100|p4d\.|a2-highgpu", "a100-40g"), (r"a100|p4de\.|a2-ultragpu", "a100"),
    (r"l40s|g6e\.", "l40s"), (r"\bl4\b|nvidia-l4|g6\.|g2-standard", "l4"), (r"a10g|g5\.", "a10g"),
    (r"\bt4\b|tesla-t4|g4dn\.", "t4"), (r"4090", "rtx4090"), (r"5090", "rtx5090"),
    (r"rtx.?pro.?6000", "rtxpro6000"), (r"mi300x|mi300", "mi300x"), (r"mi355", "mi355x"),
)  # fmt: skip


def gpus_of(resources: Any) -> int | str | None:
    if not isinstance(resources, dict):
        return None
    for part in ("limits", "requests"):
        block = resources.get(part)
        if not isinstance(block, dict):
            continue
        for name in GPU_RESOURCES:
            if name in block:
                value = str(block[name]).strip()
                return int(value) if value.isdigit() else value
    return None


def product_of(pod_spec: Any) -> str | None:
    if not isinstance(pod_spec, dict):
        return None
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, dict):
        for label in PRODUCT_LABELS:
            if label in selector:
                return str(selector[label])
    affinity = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {})  # fmt: skip
    terms = affinity.get("nodeSelectorTerms") if isinstance(affinity, dict) else None
    for term in terms or []:
        for expr in (term or {}).get("matchExpressions") or []:
            if isinstance(expr, dict) and expr.get("key") in PRODUCT_LABELS and expr.get("operator") == "In":
                values = expr.get("values") or []
                if values:
                    return str(values[0])
    return None


def preset_for(product: str | None) -> str | None:
    if not product:
        return None
    text = product.lower()
    for pattern, preset in _PRESETS:
        if re.search(pattern, text):
            return preset
    return None
