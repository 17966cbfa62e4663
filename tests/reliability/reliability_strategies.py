"""Hypothesis strategies shared by the reliability tests: models, platforms and user flags.

* models: every bundled sample (``bundled(name)``), every architecture the SGLang registry
  names, as a tiny Llama-shaped config, and random architecture strings no rule knows;
* platforms: every preset, and random but valid ``Platform(...)`` facts;
* flags: random subsets of ``ServerArgs`` fields, with values drawn from each field's
  ``choices``, plausible integers (and some absurd ones), booleans and short strings;
* releases: every supported sglang release, or none named (the default release): the properties
  hold for each one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from resolvable import HFConfig, Platform
from resolvable._platform import VENDORS
from resolvable._schema import schema_of
from resolvable.sglang import SGLANG_RELEASES, ServerArgs, registry
from resolvable.sglang.models import bundled, catalog

SCHEMA = schema_of(ServerArgs)
FIELDS = SCHEMA.fields
BUNDLED = sorted(catalog())
KNOWN_ARCHS = sorted(registry.architectures())
PRESETS = sorted(Platform.presets())


def tiny_config(arch: str) -> HFConfig:
    """A small Llama-shaped config.json under another architecture name."""
    return HFConfig(
        {
            "architectures": [arch],
            "model_type": "llama",
            "hidden_size": 256,
            "intermediate_size": 512,
            "num_hidden_layers": 2,
            "num_attention_heads": 8,
            "num_key_value_heads": 2,
            "vocab_size": 1024,
            "max_position_embeddings": 4096,
            "torch_dtype": "bfloat16",
        },
        source=f"tiny:{arch}",
    )


@dataclasses.dataclass(frozen=True)
class Model:
    label: str
    hf: HFConfig

    def __repr__(self) -> str:  # readable falsifying examples
        return f"Model({self.label!r})"


_unknown_arch = st.one_of(
    st.from_regex(r"\A[A-Z][A-Za-z0-9]{0,16}(ForCausalLM|ForConditionalGeneration|Model)?\Z"),
    st.text(min_size=1, max_size=24),
).filter(lambda a: a not in KNOWN_ARCHS)

models = st.one_of(
    st.sampled_from(BUNDLED).map(lambda n: Model(f"bundled:{n}", bundled(n))),
    st.sampled_from(KNOWN_ARCHS).map(lambda a: Model(f"tiny:{a}", tiny_config(a))),
    _unknown_arch.map(lambda a: Model(f"unknown:{a}", tiny_config(a))),
)

_CAPABILITIES = [
    (7, 0),
    (8, 0),
    (8, 6),
    (8, 9),
    (9, 0),
    (9, 4),
    (9, 5),
    (10, 0),
    (10, 3),
    (11, 0),
    (12, 0),
    (12, 1),
]
_CUDA = [(11, 8), (12, 1), (12, 3), (12, 4), (12, 6), (12, 8), (12, 9), (13, 0)]
_GCN = ["gfx942", "gfx950", "gfx90a", "gfx1100", "gfx1201"]
_KERNELS = ["flashinfer", "triton_kernels", "aiter", "deep_gemm", "sgl_kernel"]


@st.composite
def random_platforms(draw: Any) -> Platform:
    """Valid ``Platform`` facts in any combination (including ones no real machine has)."""
    return Platform(
        vendor=draw(st.sampled_from(VENDORS)),
        name="hypothesis",
        capability=draw(
            st.none() | st.sampled_from(_CAPABILITIES) | st.tuples(st.integers(0, 15), st.integers(0, 9))
        ),
        cuda_version=draw(
            st.none() | st.sampled_from(_CUDA) | st.tuples(st.integers(10, 14), st.integers(0, 9))
        ),
        gcn_arch=draw(st.none() | st.sampled_from(_GCN)),
        cpu_arch=draw(st.sampled_from(["x86_64", "aarch64", "arm64"])),
        cpu_amx=draw(st.booleans()),
        xpu_xmx=draw(st.booleans()),
        memory_gib=draw(st.none() | st.sampled_from([16.0, 80.0, 192.0])),
        device_count=draw(st.sampled_from([1, 2, 8])),
        kernels=draw(st.frozensets(st.sampled_from(_KERNELS))),
    )


platforms = st.one_of(st.sampled_from(PRESETS).map(Platform.preset), random_platforms())

# -- user flags --------------------------------------------------------------------------------

_TYPICAL_INTS = {
    "page_size": [1, 16, 32, 64, 128, 256],
    "tp_size": [1, 2, 4, 8, 16],
    "dp_size": [1, 2, 4, 8],
    "pp_size": [1, 2, 4],
    "ep_size": [1, 2, 8],
    "attn_cp_size": [1, 2, 4],
    "dcp_size": [1, 2, 8],
    "nnodes": [1, 2],
    "chunked_prefill_size": [-1, 2048, 8192],
    "max_running_requests": [1, 64, 256],
    "moe_dense_tp_size": [1, 2, 8],
    "speculative_eagle_topk": [1, 4, 8],
    "speculative_num_draft_tokens": [2, 4, 8],
    "mamba_track_interval": [64, 256],
}
_TYPICAL_STRINGS = {
    "speculative_draft_attention_backend": ["triton", "fa3", "flashinfer", "trtllm_mha"],
    "dsa_prefill_cp_mode": ["round-robin-split", "in-seq-split"],
    "flashinfer_allreduce_fusion_backend": ["trtllm", "mnnvl", "auto"],
    "rl_on_policy_target": ["fsdp"],
    "dllm_algorithm": ["LowConfidence"],
    "linear_attn_backend": ["triton", "fla"],
}


def value_strategy(name: str) -> st.SearchStrategy[Any]:
    """Values a user could pass for field ``name`` (mostly valid, some absurd)."""
    spec = FIELDS[name]
    kind = str(spec.type)
    optional = "None" in kind
    if spec.arg.choices is not None:
        base: st.SearchStrategy[Any] = st.sampled_from(list(spec.arg.choices))
    elif kind == "bool":
        base = st.booleans()
    elif "int" in kind:
        base = st.sampled_from(_TYPICAL_INTS.get(name, [1, 2, 8])) | st.integers(-2, 1 << 20)
    elif "float" in kind:
        base = st.sampled_from([0.0, 0.5, 0.8, 1.0]) | st.floats(0.0, 4.0, allow_nan=False)
    else:
        base = st.sampled_from(_TYPICAL_STRINGS.get(name, ["x"])) | st.text(max_size=8)
    return (st.none() | base) if optional else base


FLAG_FIELDS = sorted(n for n in FIELDS if n != "model_path")


@st.composite
def flags(draw: Any, max_size: int = 6) -> dict[str, Any]:
    """A random subset of user flags (SGLang field names → values)."""
    names = draw(st.lists(st.sampled_from(FLAG_FIELDS), unique=True, max_size=max_size))
    return {n: draw(value_strategy(n)) for n in names}


@dataclasses.dataclass(frozen=True)
class Scenario:
    model: Model
    platform: Platform
    flags: dict[str, Any]
    model_path: str | None
    trace: bool
    #: The sglang release resolved (None: the default release).
    release: str | None = None

    def kwargs(self) -> dict[str, Any]:
        return {
            "model_path": self.model_path,
            "trace": self.trace,
            "sglang_version": self.release,
            **self.flags,
        }


scenarios = st.builds(
    Scenario,
    model=models,
    platform=platforms,
    flags=flags(),
    model_path=st.none() | st.sampled_from(["/models/x", "org/name"]),
    trace=st.booleans(),
    release=st.none() | st.sampled_from(SGLANG_RELEASES),
)
