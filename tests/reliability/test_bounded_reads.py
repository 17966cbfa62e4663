"""Reads that cannot hang or exhaust memory: the Hugging Face cache, other files, the config itself.

Guarantees:

* ``resolvable._files.read_bounded``, the one guarded reader that config.json, its side files,
  the hub cache's ``refs/main``, the checkout files of ``docs`` (and the pack readers built on
  it) use, refuses anything but a regular file before opening it, opens without blocking, and
  reads at most its limit + 1 bytes;
* a ``refs/main`` that is a FIFO, ``/dev/zero``, a large sparse file or garbage is a one-line
  ``ConfigError`` naming it, at once (child processes with a timeout and an address-space cap);
* a config.json of a few MB made of millions of tiny values is refused before it is parsed
  (``MAX_CONFIG_VALUES``), within a 384 MiB address space;
* caches keyed on user input stay bounded: resolving configs with 64 distinct 1 MiB
  architecture names keeps no more than a few MiB.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, child_env, run_child

from resolvable import Platform
from resolvable._files import read_bounded
from resolvable._hfconfig import MAX_CONFIG_VALUES, find_in_hub_cache, load_hf_config
from resolvable.errors import ConfigError
from resolvable.sglang import resolve_server_args

REPO = "org/model"
LLAMA = {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_attention_heads": 4}


def _hub(tmp_path: Path, ref: bytes | None = b"abc123\n") -> tuple[Path, Path]:
    hub = tmp_path / "hub"
    repo = hub / "models--org--model"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(LLAMA))
    (repo / "refs").mkdir()
    if ref is not None:
        (repo / "refs" / "main").write_bytes(ref)
    return hub, repo / "refs" / "main"


def _address_space(limit_mib: int):
    def preexec() -> None:
        limit = limit_mib * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec


# -- the guarded reader ----------------------------------------------------------------------


def test_read_bounded_reads_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"12345")
    assert read_bounded(path, 5) == b"12345"
    with pytest.raises(ConfigError, match="too large"):
        read_bounded(path, 4)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")
def test_read_bounded_refuses_a_fifo_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file") as info:
        read_bounded(fifo, 100, what="refs/main")
    assert str(fifo) in str(info.value)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_read_bounded_refuses_devices(target: str) -> None:
    if not os.path.exists(target):
        pytest.skip(f"no {target}")
    with pytest.raises(ConfigError, match="not a regular file"):
        read_bounded(target, 100)


def test_read_bounded_refuses_a_large_sparse_file_by_its_size(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as fh:
        fh.truncate(64 * 2**30)  # 64 GiB of nothing: no disk used, but reading it all would not end
    with pytest.raises(ConfigError, match="too large"):
        read_bounded(sparse, 2**20)


# -- the hub cache ---------------------------------------------------------------------------


def test_hub_cache_follows_a_good_ref(tmp_path: Path) -> None:
    hub, _ = _hub(tmp_path)
    assert find_in_hub_cache(REPO, str(hub)).parent.name == "abc123"


@pytest.mark.parametrize(
    "ref",
    [b"", b"../../../../etc\n", b"a/b\n", b"\xff\xfe\n", b"x" * 10_000, b"..\n"],
    ids=["empty", "dotdot-path", "slash", "not-ascii", "huge", "dotdot"],
)
def test_hub_cache_refuses_a_malformed_ref(tmp_path: Path, ref: bytes) -> None:
    hub, _ = _hub(tmp_path, ref)
    with pytest.raises(ConfigError) as info:
        load_hf_config(REPO, hub_cache=str(hub))
    assert "refs" in str(info.value) and "\n" not in str(info.value)


def _child_load(hub: Path, *, timeout: float = 10, limit_mib: int = 512) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom resolvable._hfconfig import load_hf_config\nfrom resolvable.errors import ConfigError\n"
        "try:\n    load_hf_config('org/model', hub_cache=sys.argv[1])\nexcept ConfigError as exc:\n"
        "    print(exc); sys.exit(2)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(hub)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_address_space(limit_mib),
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")
def test_hub_cache_ref_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    hub, ref_path = _hub(tmp_path, None)
    os.mkfifo(ref_path)
    proc = _child_load(hub)  # a hang would raise TimeoutExpired
    assert proc.returncode == 2 and "not a regular file" in proc.stdout, proc
    assert str(ref_path) in proc.stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this OS")
def test_hub_cache_ref_that_is_dev_zero_is_not_read(tmp_path: Path) -> None:
    hub, ref_path = _hub(tmp_path, None)
    ref_path.symlink_to("/dev/zero")
    proc = _child_load(hub)
    assert proc.returncode == 2 and "not a regular file" in proc.stdout, proc


def test_hub_cache_ref_that_is_a_large_sparse_file_is_not_read(tmp_path: Path) -> None:
    hub, ref_path = _hub(tmp_path, None)
    with open(ref_path, "wb") as fh:
        fh.truncate(8 * 2**30)
    proc = _child_load(hub)
    assert proc.returncode == 2 and "too large" in proc.stdout, proc


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")
def test_hub_cache_fifo_through_the_cli(tmp_path: Path) -> None:
    hub, ref_path = _hub(tmp_path, None)
    os.mkfifo(ref_path)
    proc = run_child(["explain", REPO], env=child_env(HF_HUB_CACHE=str(hub)), timeout=30)
    assert_one_line_error(proc, "refs/main")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")
def test_snapshot_config_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    hub, _ = _hub(tmp_path)
    config = hub / "models--org--model" / "snapshots" / "abc123" / "config.json"
    config.unlink()
    os.mkfifo(config)
    proc = _child_load(hub)
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc  # not found, or refused


# -- the structure of config.json ----------------------------------------------------------


@pytest.mark.parametrize("shape", ["objects", "arrays", "numbers"])
def test_millions_of_tiny_values_are_refused_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    item = {"objects": "{}", "arrays": "[]", "numbers": "0"}[shape]
    n = 2_000_000
    path = tmp_path / "config.json"
    path.write_text('{"architectures": ["LlamaForCausalLM"], "x": [' + ",".join([item] * n) + "]}")
    code = (
        "import sys\nfrom resolvable._hfconfig import load_hf_config\nfrom resolvable.errors import ConfigError\n"
        "try:\n    load_hf_config(sys.argv[1])\nexcept ConfigError as exc:\n    print(exc); sys.exit(2)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_address_space(384),
        check=False,
    )
    assert proc.returncode == 2, proc
    assert "JSON values" in proc.stdout and f"{MAX_CONFIG_VALUES:,}" in proc.stdout


def test_many_values_inside_strings_are_not_counted(tmp_path: Path) -> None:
    """The structural count skips string contents: a long string full of commas is one value."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, "notes": ",[{" * (MAX_CONFIG_VALUES + 10)}))
    assert load_hf_config(path).architecture == "LlamaForCausalLM"


def test_a_config_at_the_value_limit_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, "x": [0] * (MAX_CONFIG_VALUES - 100)}))
    assert load_hf_config(path).architecture == "LlamaForCausalLM"


# -- caches keyed on user input --------------------------------------------------------------


def test_memory_does_not_grow_per_distinct_architecture_name() -> None:
    platform = Platform.preset("h100")
    resolve_server_args(LLAMA, platform)  # warm up what is cached once per process
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(64):
            name = f"{i:03d}" + "X" * 2**20 + "ForCausalLM"
            resolve_server_args({**LLAMA, "architectures": [name]}, platform)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 8 * 2**20, f"{kept / 2**20:.1f} MiB kept after 64 configs with 1 MiB names"


def test_vllm_memo_does_not_keep_every_config() -> None:
    """The vLLM pack memoises its layer queries per config: only the last few configs are kept."""
    from resolvable.vllm.api import resolve_vllm_args

    platform = Platform.preset("h100")
    config = {**LLAMA, "num_hidden_layers": 2}
    resolve_vllm_args(config, platform)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(64):
            resolve_vllm_args({**config, "padding": "Y" * 2**20, "num_hidden_layers": i + 1}, platform)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 8 * 2**20, f"{kept / 2**20:.1f} MiB kept after 64 configs of 1 MiB"
