"""Issue 29 item 6: fuzzing the surfaces of issues 17-20 in-process — config.json values, pasted
launch commands (both engines) and the vLLM ``--config`` YAML — against explain and fit for
both engines, with a time bound per example.

The invariant, whatever the input: ``main`` returns 0 (an answer) or 2 with an ``error:`` line;
never a traceback, an "internal error", a hang (each example runs under a ``SIGALRM`` of
``HANG_S`` seconds and must finish within ``SLOW_S``), or a file written outside the example's
own directory (the working directory is a fresh temporary one, and its listing is compared).

Budget: ``EXAMPLES`` examples per property under the "ci" profile (the suite default), well under
a minute on one core for the three properties together; ``HYPOTHESIS_PROFILE=long`` runs the
profile's 2,000.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolvable._hfvalues import COUNTS
from resolvable.cli import main
from resolvable.vllm.cli_args import build_parser

EXAMPLES = 20 if settings.default.max_examples <= 60 else settings.default.max_examples
HANG_S = 30
SLOW_S = 15.0

BASE: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "vocab_size": 1000,
    "max_position_embeddings": 2048,
    "torch_dtype": "bfloat16",
}
COMMANDS = [
    ["explain", "--platform", "h100"],
    ["explain", "--platform", "h100", "--engine", "vllm"],
    ["fit", "--platform", "h100"],
    ["fit", "--platform", "h100", "--engine", "vllm"],
    ["explain", "--platform", "mi300x", "--json"],
]

hostile_scalar = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["NaN", "inf", "-0", "four", "", "float128", "bfloat16", "torch.float16", "a\nb"]),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
)
hostile_value = st.recursive(
    hostile_scalar,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)
KEYS = [*COUNTS, "torch_dtype", "rope_theta", "sliding_window", "head_dim", "architectures", "model_type"]


@st.composite
def config_json(draw: Any) -> dict[str, Any]:
    config = dict(BASE)
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True)):
        config[key] = draw(hostile_value)
    if draw(st.booleans()):
        config["quantization_config"] = {
            "quant_method": draw(
                st.sampled_from(["gptq", "awq", "fp8", "bitsandbytes", "compressed-tensors", "x"])
            ),
            "bits": draw(hostile_value),
            "group_size": draw(hostile_value),
        }
    if draw(st.booleans()):
        config["rope_scaling"] = {
            "rope_type": draw(st.sampled_from(["yarn", "linear", "dynamic", "llama3", "longrope", "?"])),
            "factor": draw(hostile_value),
            "original_max_position_embeddings": draw(hostile_value),
        }
    return config


@contextlib.contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """A ``TimeoutError`` in the main thread after ``seconds`` (a hang fails, not blocks)."""

    def fire(*_: Any) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(argv: list[str], capsys: Any, workdir: str) -> None:
    before = sorted(os.listdir(workdir))
    start = time.monotonic()
    with bounded(HANG_S):
        code = main(argv)
    took = time.monotonic() - start
    out, err = capsys.readouterr()
    assert took < SLOW_S, (took, argv[:12])
    assert "Traceback" not in out + err and "internal error" not in out + err, err[-2000:]
    # 0 would start, 1 would not (the engine's refusal or no fit: a verdict), 2 the tool's input error
    assert code in (0, 1, 2), (code, err[-500:])
    said_error = any(line.startswith("error: ") for line in err.splitlines())
    if code == 2:
        assert said_error, err[-500:]
    if code == 1:
        assert said_error or "would not start" in out, (out[-500:], err[-500:])
    assert sorted(os.listdir(workdir)) == before  # nothing written beside the inputs


@pytest.fixture
def workdir(monkeypatch, tmp_path_factory) -> Iterator[str]:
    path = str(tmp_path_factory.mktemp("fuzz"))
    monkeypatch.chdir(path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", os.path.join(path, ".cache"))
    yield path


pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="SIGALRM bounds each example")


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=config_json(), command=st.sampled_from(COMMANDS))
def test_config_values_get_an_answer_or_one_error_line(capsys, workdir, config, command):
    with tempfile.TemporaryDirectory(dir=workdir) as model:
        path = os.path.join(model, "config.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(config, fh, allow_nan=False, default=str)
        run([command[0], path, *command[1:]], capsys, workdir)


def _vllm_options() -> list[tuple[str, bool]]:
    parser = build_parser()
    return [
        (a.option_strings[-1], a.nargs == 0) for a in parser._actions if a.option_strings if a.dest != "help"
    ]


VLLM_OPTIONS = _vllm_options()
SGLANG_OPTIONS = [
    "--tp-size", "--dp-size", "--page-size", "--chunked-prefill-size", "--context-length", "--mem-fraction-static",
    "--attention-backend", "--kv-cache-dtype", "--quantization", "--max-running-requests", "--revision",
    "--speculative-algorithm", "--enable-dp-attention", "--trust-remote-code", "--dtype", "--cuda-graph-max-bs",
]  # fmt: skip
flag_value = st.one_of(
    st.sampled_from(["0", "-1", "1", "8", "1e11", "100000000000", "nan", "inf", "auto", "fa3", "fp8", "", "{}",
                     '{"a": 1}', "../../x", "a\nb", "true"]),
    st.integers(-(2**40), 2**40).map(str),
    st.text(max_size=10),
)  # fmt: skip


@st.composite
def pasted(draw: Any) -> list[str]:
    if draw(st.booleans()):
        words = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
        for _ in range(draw(st.integers(0, 6))):
            option, is_switch = draw(st.sampled_from(VLLM_OPTIONS))
            words += [option] if is_switch else [option, draw(flag_value)]
        engine = ["--engine", "vllm"]
    else:
        words = ["python", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
        for _ in range(draw(st.integers(0, 6))):
            words += [draw(st.sampled_from(SGLANG_OPTIONS)), draw(flag_value)]
        engine = []
    if draw(st.booleans()):  # stray words, repeated flags
        words += draw(st.lists(st.text(max_size=6) | st.sampled_from(["--", "-", "\\"]), max_size=3))
    if draw(st.integers(0, 9)) == 0:  # a runaway paste
        words += ["--enforce-eager"] * draw(st.integers(4096, 6000))
    command = draw(st.sampled_from(["explain", "fit"]))
    return [command, "--platform", "h100", *engine, "--", *words]


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=pasted())
def test_pasted_commands_get_an_answer_or_one_error_line(capsys, workdir, argv):
    run(argv, capsys, workdir)


yaml_key = st.sampled_from([o[2:] for o, _ in VLLM_OPTIONS]) | st.text(min_size=1, max_size=10)


@st.composite
def yaml_text(draw: Any) -> str:
    import yaml

    if draw(st.integers(0, 4)) == 0:  # not YAML, or not a mapping
        return draw(
            st.text(max_size=200)
            | st.sampled_from(["- a\n- b\n", "a: [1, 2\n", "&a [*a]\n", "!!python/object:os.system {}\n"])
        )
    mapping = draw(st.dictionaries(yaml_key, hostile_value, max_size=8))
    if draw(st.integers(0, 9)) == 0:  # many unknown keys
        mapping.update({f"unknown-{i}": i for i in range(draw(st.integers(1000, 1500)))})
    return yaml.safe_dump(mapping, allow_unicode=True)


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=yaml_text(), command=st.sampled_from(["explain", "fit"]))
def test_vllm_config_yaml_gets_an_answer_or_one_error_line(capsys, workdir, text, command):
    with tempfile.TemporaryDirectory(dir=workdir) as flags:
        path = os.path.join(flags, "flags.yaml")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        argv = [command, "--platform", "h100", "--engine", "vllm", "--", "vllm", "serve",
                "meta-llama/Llama-3.1-8B-Instruct", "--config", path]  # fmt: skip
        run(argv, capsys, workdir)


@pytest.mark.parametrize(
    ("code", "err", "write"),
    [
        (70, "internal error: boom", False),
        (2, "no error line", False),
        (0, "", True),
        (1, "no verdict", False),
        (3, "error: x", False),
    ],
)
def test_the_invariant_checker_can_fail(capsys, workdir, monkeypatch, code, err, write):
    """``run`` catches each broken invariant: an internal error, a 2 without an error line, a
    file written beside the inputs, a 1 that gives no verdict, another exit code."""
    import sys

    def fake(argv: list[str]) -> int:
        print(err, file=sys.stderr)
        if write:
            with open(os.path.join(workdir, "stray"), "w") as fh:
                fh.write("x")
        return code

    monkeypatch.setattr(sys.modules[__name__], "main", fake)
    with pytest.raises(AssertionError):
        run(["explain"], capsys, workdir)
