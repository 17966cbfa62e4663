"""Every error is one line, whatever the input holds.

Guarantee: ``str(error)`` of every ``ResolvableError`` escapes line breaks, other control
characters and characters that cannot be encoded (``errors.one_line``), and the CLI prints one
``error:`` line for it. A name, a path or a flag value holding a newline, a carriage return, an
escape sequence or a lone surrogate (a non-UTF-8 file name) therefore never splits an error, and
never makes printing fail, also with ``PYTHONIOENCODING=utf-8`` (whose stdout is strict).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, child_env, run_child

from resolvable import Platform
from resolvable.errors import ConflictError, ResolvableError, one_line
from resolvable.sglang import resolve_server_args

HOSTILE = ["a\nb", "a\rb", "a\x1b[31mred", "tab\there", "nul\x00", "line\u2028sep", "surrogate\udce9", "\x85"]


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_one_line_escapes_what_would_break_a_line(text: str) -> None:
    line = one_line(f"error about {text}")
    assert line.isprintable()
    line.encode("utf-8")  # always encodable
    assert one_line("plain ✓ text é") == "plain ✓ text é"  # printable text is left alone


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_library_errors_are_one_line(text: str) -> None:
    attempts = [
        lambda: resolve_server_args(
            {"architectures": [text + "ForCausalLM"]}, Platform.preset("h100"), page_size=text
        ),
        lambda: resolve_server_args(
            {"architectures": ["LlamaForCausalLM"]}, Platform.preset("h100"), **{text: 1}
        ),
        lambda: Platform.preset(text),
        lambda: resolve_server_args({"architectures": ["LlamaForCausalLM"]}, text),
        lambda: resolve_server_args(
            {"architectures": ["LlamaForCausalLM"]}, Platform.preset("h100"), attention_backend=text
        ),
    ]
    for attempt in attempts:
        with pytest.raises(ResolvableError) as info:
            attempt()
        message = str(info.value)
        assert message.isprintable(), message
        message.encode("utf-8")


def test_a_refusal_with_a_hostile_value_is_one_line() -> None:
    exc = ConflictError("bad\nvalue", fix="set\r--x")
    exc.rule, exc.location = "rule\x1b", "file.py:1"
    assert str(exc).isprintable()


def _config(directory: Path, arch: str = "LlamaForCausalLM") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({"architectures": [arch]}), encoding="utf-8")
    return directory


@pytest.mark.parametrize(
    "argv",
    [
        ["explain", "/tmp/no\nsuch/config.json"],
        ["explain", "llama-3.1-8b", "--platform", "h1\n00"],
        ["explain", "llama-3.1-8b", "--attention-backend", "fa\n3"],
        ["explain", "llama-3.1-8b", "--page-size", "1\n6"],
        ["explain", "llama-3.1-8b", "--field", "page\nsize"],
        ["explain", "llama-3.1-8b", "--env", "NO\nEQUALS"],
        ["explain", "llama-3.1-8b", "--bogus-\nflag"],
        ["matrix", "--models", "llama-3.1-8b", "--platforms", "h100", "--fields", "x\ny"],
        ["diff", "llama-3.1-8b", "--vs-platform", "\x1b[2J"],
        ["explain", "llama-3.1-8b", "--sglang-version", "0.5\n.23"],
    ],
    ids=lambda a: " ".join(a)[:40],
)
def test_cli_errors_with_control_characters_are_one_line(argv: list[str]) -> None:
    assert_one_line_error(run_child(argv))


def test_architecture_with_a_newline_is_one_line_in_the_cli(tmp_path: Path) -> None:
    model = _config(tmp_path / "m", "Llama\nForCausalLM")
    proc = run_child(["explain", str(model), "--attention-backend", "nope"])
    assert_one_line_error(proc)


@pytest.mark.skipif(os.name != "posix", reason="undecodable file names are a POSIX matter")
@pytest.mark.parametrize("exists", [True, False], ids=["existing", "missing"])
def test_non_utf8_path_with_pythonioencoding_utf8(tmp_path: Path, exists: bool) -> None:
    directory = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    if exists:
        _config(Path(os.fsdecode(directory)))
    env = child_env(PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8")
    proc = run_child(["explain", directory], env=env)
    if exists:
        assert proc.returncode == 0, proc.stderr
        assert b"caf\\udce9" in proc.stdout  # the undecodable byte, escaped
        assert proc.stderr == b""
    else:
        line = assert_one_line_error(proc)
        assert "caf\\udce9" in line
