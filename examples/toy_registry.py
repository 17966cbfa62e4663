"""A toy engine with two resolvable fields, one architecture rule and one pass.

Run: python examples/toy_registry.py
"""

from dataclasses import dataclass

from resolvable import Force, Platform, Registry, Stage, arg, resolve


@dataclass
class ToyArgs:
    attention_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backend",
        choices=("fa3", "flashinfer", "triton"),
        help="Attention kernel.",
    )
    page_size: int | None = arg(None, resolvable=True, help="KV-cache page size in tokens.")


registry = Registry(ToyArgs, stages=[Stage("model", isolated=True), "defaults"], name="toy", version="1")


@registry.for_arch("MyModelForCausalLM")
def my_model_prefers_fa3(ctx):
    """MyModel ships FA3 kernels on Hopper."""
    if ctx.args.attention_backend is None and ctx.platform.is_sm90:
        return {
            "attention_backend": "fa3",
            "page_size": Force(64, "MyModel's FA3 kernel needs 64-token pages"),
        }
    return {}


@registry.rule("defaults")
def default_backend(ctx):
    """Anything still unset gets portable defaults."""
    out = {}
    if ctx.args.attention_backend is None:
        out["attention_backend"] = "triton"
    if ctx.args.page_size is None:
        out["page_size"] = 1
    return out


if __name__ == "__main__":
    hf = {"architectures": ["MyModelForCausalLM"], "model_type": "mymodel"}
    for preset in ("h100", "a100"):
        res = resolve(registry, {"page_size": 16}, hf, Platform.preset(preset), trace=True)
        print(f"== {preset}: {dict(res)}  fingerprint {res.fingerprint()}")
        for field in ("attention_backend", "page_size"):
            print(res.explain(field))
        ctx = res.publish()
        print("published attn.backend =", ctx.attn.backend)
        print()
