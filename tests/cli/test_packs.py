"""A third engine is a new pack, not CLI surgery (resolvable.packs, cli/generic.py).

A toy pack, written here against the public API only (``resolvable.rules``, ``resolvable.packs``),
is registered by name; ``resolvable explain|resolve|models --engine toy`` and a pasted ``toy
serve …`` command then work through the one Pack interface, and the registry refuses a malformed
registration naming the culprit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re

import pytest

from resolvable import packs
from resolvable.cli import main
from resolvable.rules import ConflictError, HFConfig, Registry, Stage, arg


@dataclasses.dataclass
class ToyArgs:
    model_path: str | None = arg(None, help="The model.")
    kernel: str | None = arg(
        None, resolvable=True, leaf="attn.kernel", choices=("slow", "fast"), help="Kernel."
    )
    block: int | None = arg(None, resolvable=True, help="Block size.")


toy_registry = Registry(ToyArgs, [Stage("model", isolated=True), "fill"], releases=("1.0", "1.1"), name="toy")


@toy_registry.rule("fill")
def toy_kernel(ctx):
    """Toy engine: the fast kernel on a GPU with compute capability 9 or newer."""
    out = {}
    if ctx.args.kernel is None:
        out["kernel"] = (
            "fast" if ctx.platform.is_cuda and (ctx.platform.capability or (0, 0)) >= (9, 0) else "slow"
        )
    if ctx.args.block is None:
        out["block"] = 32 if ctx.release.version == "1.1" else 16
    elif ctx.args.block % 16:
        raise ConflictError(f"block {ctx.args.block} is not a multiple of 16", fix="use --block 16")
    return out


class ToyPack(packs.Pack):
    name = "toy"
    title = "Toy"
    release_option = "--toy-version"

    @property
    def registry(self):
        return toy_registry

    def recognises(self, words):
        return words[:2] == ["toy", "serve"]

    def add_cli_args(self, parser: argparse.ArgumentParser, release=None) -> None:
        parser.add_argument("--kernel", default=argparse.SUPPRESS)
        parser.add_argument("--block", type=int, default=argparse.SUPPRESS)
        parser.add_argument("--log-level", default=argparse.SUPPRESS)

    def parse_flags(self, namespace, release=None):
        values = vars(namespace)
        return {k: v for k, v in values.items() if k in ("kernel", "block")}, [
            f"--{k.replace('_', '-')}" for k in values if k not in ("kernel", "block")
        ]

    def load_model(self, name, **options):
        return HFConfig({"architectures": ["ToyForCausalLM"], "model_type": "toy"}, source=name)

    def catalog(self):
        return {"toy-1b": {"family": "toy", "repo_id": "toy/toy-1b"}}

    def resolve(self, hf, platform, env=None, *, release=None, trace=False, **user):
        from resolvable.rules import resolve

        return resolve(self.registry, user, hf, platform, env, trace=trace, release=self.release(release))


PACK = ToyPack()


@pytest.fixture
def toy():
    packs.register("toy", f"{__name__}:PACK")
    yield packs.get("toy")
    packs.unregister("toy")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_a_third_pack_through_the_cli(toy, capsys):
    code, out, err = run(capsys, "explain", "toy-1b", "--engine", "toy", "--platform", "h100")
    assert code == 0, err
    assert "rules     toy 1.1" in out
    assert "kernel = 'fast'" in out and "toy_kernel" in out
    assert "block = 32" in out


def test_resolve_a_third_pack_through_the_cli_as_json(toy, capsys):
    code, out, err = run(
        capsys, "resolve", "toy-1b", "--engine", "toy", "--platform", "a100", "--toy-version", "1.0", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["engine"] == "toy" and data["release"] == "1.0"
    assert data["values"]["kernel"] == "slow" and data["values"]["block"] == 16
    assert data["context"]["attn"]["kernel"] == "slow"


def test_a_pasted_third_engine_command_is_recognised(toy, capsys):
    code, out, err = run(
        capsys,
        "resolve",
        "--platform",
        "h100",
        "--",
        "toy",
        "serve",
        "--model",
        "toy-1b",
        "--log-level",
        "debug",
    )
    assert code == 0, err
    assert packs.recognise(["toy", "serve", "x"]) == "toy"
    assert "not modelled  --log-level" in out
    assert "attn.kernel" in out and "fast" in out


def test_a_third_pack_refusal_is_one_error_line(toy, capsys):
    code, out, err = run(
        capsys, "resolve", "toy-1b", "--engine", "toy", "--platform", "h100", "--block", "20"
    )
    assert code == 1
    assert out == ""  # resolve prints no partial answer
    (line,) = err.strip().splitlines()
    assert re.fullmatch(
        r"error: refused: block 20 is not a multiple of 16 Fix: use --block 16 "
        r"\[refused by toy_kernel at cli/test_packs.py:\d+\]",
        line,
    )


def test_the_third_pack_lists_its_models(toy, capsys):
    code, out, _ = run(capsys, "models", "--engine", "toy")
    assert code == 0 and "toy-1b" in out and "toy/toy-1b" in out


def test_the_engine_choice_lists_registered_packs_only(capsys):
    assert packs.names() == ("sglang", "vllm")
    code, _, err = run(capsys, "explain", "qwen3-8b", "--engine", "toy")
    assert code == 2 and "invalid choice: 'toy'" in err


@pytest.mark.parametrize(
    ("name", "target", "message"),
    [
        ("Toy", "m:PACK", "lower-case"),
        ("toy", "no-colon", "not 'module:ATTRIBUTE'"),
        ("sglang", "other.pack:PACK", "already registered"),
    ],
)
def test_register_refuses_a_malformed_registration(name, target, message):
    with pytest.raises(packs.PackError, match=message):
        packs.register(name, target)


def test_get_checks_what_the_target_names():
    packs.register("notapack", f"{__name__}:toy_registry")
    try:
        with pytest.raises(packs.PackError, match=r"not a resolvable\.packs\.Pack"):
            packs.get("notapack")
    finally:
        packs.unregister("notapack")
    packs.register("misnamed", f"{__name__}:PACK")
    try:
        with pytest.raises(packs.PackError, match="calls itself 'toy'"):
            packs.get("misnamed")
    finally:
        packs.unregister("misnamed")
    with pytest.raises(packs.PackError, match="did you mean 'vllm'"):
        packs.get("vlm")


def test_the_builtin_packs_answer_the_interface():
    for name in packs.names():
        pack = packs.get(name)
        assert isinstance(pack, packs.Pack) and pack.name == name
        assert pack.default_release in pack.releases
        assert pack.release(None) == pack.default_release
    assert packs.recognise(["vllm", "serve", "m"]) == "vllm"
    assert packs.recognise(["python", "-m", "sglang.launch_server", "--model-path", "m"]) == "sglang"
    assert packs.recognise(["sglang", "serve"]) == "sglang"
    assert packs.recognise(["bash"]) is None


def test_a_third_pack_gets_the_launch_and_the_verdict(toy):
    """Pack.build_launch / Pack.verdict work for a pack that implements only the launch methods."""
    launch = toy.build_launch(command=["toy", "serve", "--model", "toy-1b", "--block", "20"], platform="h100")
    assert (launch.engine, launch.release, launch.release_from) == ("toy", "1.1", "default")
    assert dict(launch.user) == {"block": 20} and launch.config_source == "sample"
    res, verdict = toy.verdict(launch)
    assert verdict.status == "refused" and verdict.fix == "use --block 16" and verdict.exit_code == 1
    res, verdict = toy.verdict(launch.with_user(block=32))
    assert verdict.status == "starts" and res["kernel"] == "fast"
    assert verdict.unknowns and verdict.unknowns[0].startswith("memory: ")  # no memory model: not a refusal
    rejected = toy.build_launch(model="toy-1b", argv=["--no-such"], release="1.0")
    assert rejected.release_from == "flag"
    assert toy.verdict(rejected)[1].stage == "parse"


def test_a_third_pack_is_judged_through_the_front_door(toy, capsys):
    """explain/resolve of a pack without a front-end of its own read the launch with
    ``cli.frontdoor.read_launch`` and judge it with ``Pack.verdict``: the verdict line, the JSON
    ``verdict`` (memory not modelled by the toy: an unknown, never a refusal) and its exit code."""
    code, out, err = run(capsys, "explain", "toy-1b", "--engine", "toy", "--platform", "h100")
    assert code == 0 and "verdict   would start" in out, err
    code, out, _ = run(capsys, "resolve", "toy-1b", "--engine", "toy", "--platform", "h100", "--json")
    verdict = json.loads(out)["verdict"]
    assert code == 0 and verdict["status"] == "starts" and verdict["exit_code"] == 0
    assert any("memory_capacity" in u for u in verdict["unknowns"])


def test_a_flag_the_third_engine_lacks_is_its_parser_refusal(toy, capsys):
    code, out, err = run(capsys, "resolve", "toy-1b", "--engine", "toy", "--platform", "h100", "--bogus", "1")
    assert code == 1 and out == ""
    assert err.strip() == "error: toy serve 1.1: unrecognized arguments: --bogus 1"


def test_a_third_pack_takes_every_explain_option_of_the_front_door(toy, capsys):
    """Issue 26 (item 5): `--why-not`, `--field`, `--all`, `--gpus`, `--env` mean the same for a
    third pack: explain and resolve are one parser per command (``cli.launchcmd``), not one per
    engine; `--why-not` is answered by ``cli.whynot`` through ``Pack.verdict``."""
    base = ["explain", "toy-1b", "--engine", "toy", "--platform", "h100"]
    code, out, err = run(capsys, *base, "--why-not", "slow", "--field", "kernel")
    assert code == 0, err
    assert out.startswith("kernel='slow' would be accepted (without it: 'fast')"), out
    code, out, err = run(capsys, *base, "--why-not", "slow", "--field", "kernel", "--json")
    assert code == 0 and json.loads(out)["outcome"] == "accepted", err
    code, out, err = run(capsys, *base, "--field", "block", "--all", "--gpus", "2", "--env", "A=1")
    assert code == 0 and "block" in out and "kernel = " not in out, (out, err)
