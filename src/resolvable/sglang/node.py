"""SGLang's node check: does the node hold the launch's ranks, and can TP split the heads?

A check after the start-up checks (``Pack.verdict``, docs/architecture.md "One launch, one
verdict"). Facts from the sglang wheels (0.5.15–0.5.23):

* ranks: without DP attention, ``--dp-size`` starts that many replicas of ``tp × pp`` ranks
  (``managers/data_parallel_controller.py``); with ``--enable-dp-attention`` the DP ranks live
  inside the TP group, so the world is ``tp × pp``. The ranks are spread over ``--nnodes``; each
  node places ``world / nnodes`` ranks on its GPUs from ``--base-gpu-id`` by ``--gpu-id-step``
  (``scheduler``'s GPU id), and a rank past the node's last GPU fails in ``torch.cuda.set_device``
  ("CUDA error: invalid device ordinal");
* heads: the attention layers split the query heads over the attention-TP group
  (``tp / dp`` with DP attention), asserting ``num_heads % attn_tp_size == 0`` in each model's
  attention module (``models/llama.py`` ``LlamaAttention.__init__``, ``deepseek_v2.py``), an
  ``AssertionError`` at model load.

Invariant: refuses only what the engine would refuse; a node that is not a GPU node (a CPU
platform) is not checked.
"""

from __future__ import annotations

from ..errors import ConflictError
from ..rules import Fix

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any


def _heads(hf: Any) -> int | None:
    from ..memory import text_config

    cfg = text_config(hf)
    for key in ("num_attention_heads", "n_head", "num_heads"):
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def node_check(res: Any, hf: Any, launch: Any) -> None:
    """Refuse (``ConflictError``) the launch sglang could not place on the node or split by heads."""
    platform = res.platform
    if platform.vendor == "cpu":
        return
    tp, pp = int(res["tp_size"] or 1), int(res["pp_size"] or 1)
    dp = int(res["dp_size"] or 1)
    dp_attention = bool(res["enable_dp_attention"])
    nnodes = int(res["nnodes"] or 1) if "nnodes" in res else 1
    nnodes = max(nnodes, getattr(getattr(launch, "node", None), "nodes", 1))
    world = tp * pp * (1 if dp_attention else dp)
    gpus = int(platform.device_count or 1)
    per_node = -(-world // nnodes)
    if per_node > gpus:
        what = f"tp_size × pp_size ({tp} × {pp})" + ("" if dp_attention or dp == 1 else f" × dp_size ({dp})")
        more_nodes = Fix(set={"nnodes": -(-world // gpus)})
        smaller = [n for n in range(min(tp, gpus), 0, -1) if tp % n == 0 and world // tp * n <= gpus * nnodes]
        fix = Fix.any_of(Fix(set={"tp_size": smaller[0]}), more_nodes) if smaller else more_nodes
        exc = ConflictError(
            f"{what} = {world} ranks on {nnodes} node(s) of {gpus} GPUs: {per_node} ranks per node, "
            f"more than its {gpus} GPUs (torch.cuda.set_device: CUDA error: invalid device ordinal)",
            fields=("tp_size", "pp_size", "nnodes"),
            fix=fix,
            upstream="RuntimeError",
        )
        exc.rule, exc.stage, exc.phase = "node: ranks per node", "node", "node"
        exc.location = "resolvable/sglang/node.py"
        raise exc
    heads = _heads(hf)
    attn_tp = tp // dp if dp_attention and dp > 0 and tp % dp == 0 else tp
    if heads is not None and attn_tp > 1 and heads % attn_tp != 0:
        divisors = [n for n in range(attn_tp, 0, -1) if heads % n == 0 and tp % n == 0]
        exc = ConflictError(
            f"the model's {heads} attention heads cannot be split over an attention-TP group of "
            f"{attn_tp} (AssertionError at model load: num_heads % attn_tp_size == 0)",
            fields=("tp_size",),
            fix=Fix(set={"tp_size": divisors[0] * (dp if dp_attention else 1)}) if divisors else None,
            upstream="AssertionError",
        )
        exc.rule, exc.stage, exc.phase = "node: heads per TP rank", "node", "node"
        exc.location = "resolvable/sglang/node.py"
        raise exc
