"""The parse-only flag tables (issue 32 item 2): vLLM 0.11.0-0.19.1 and sglang from 0.5.1 up to the oldest resolved release,
stored as deltas (``resolvable.flag_history``) and read lazily.

CI regenerates a pinned sample of three releases per engine from their wheels (``.ci/run`` fetches
exactly these); ``python tools/flag_history.py --check ENGINE WHEELS`` regenerates all of them
where the wheels are (docs/adding-a-release.md)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from required_inputs import sglang_wheel, vllm_wheel
from resolvable.flag_history import apply_delta, version_key
from resolvable.sglang import flags as sglang_flags
from resolvable.vllm import flags as vllm_flags

ROOT = Path(__file__).resolve().parents[2]
FLAGS = {"vllm": vllm_flags, "sglang": sglang_flags}

#: Every release on the package index (``pip index versions``, 2026-12-04) from the oldest
#: parse-only release up to the first with a full table. sglang 0.5.0 was never published.
EXPECTED = {
    "vllm": [
        "0.11.0",
        "0.11.1",
        "0.11.2",
        "0.12.0",
        "0.13.0",
        "0.14.0",
        "0.14.1",
        "0.15.0",
        "0.15.1",
        "0.16.0",
        "0.17.0",
        "0.17.1",
        "0.18.0",
        "0.18.1",
        "0.19.0",
        "0.19.1",
    ],
    "sglang": [
        "0.5.1",
        "0.5.1.post1",
        "0.5.1.post2",
        "0.5.1.post3",
        "0.5.2",
        "0.5.3",
        "0.5.3.post1",
        "0.5.3.post2",
        "0.5.3.post3",
        "0.5.4",
        "0.5.4.post1",
        "0.5.4.post2",
        "0.5.4.post3",
    ],
}

#: The releases CI regenerates from their wheels: the oldest, one in the middle, the newest.
SAMPLE = {"vllm": ("0.11.0", "0.15.0", "0.19.1"), "sglang": ("0.5.1", "0.5.3.post1", "0.5.4.post3")}


def _extractor(engine: str):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import flag_history
    finally:
        sys.path.pop(0)
    return flag_history


@pytest.mark.parametrize("engine", FLAGS)
def test_every_release_in_the_range_has_a_parse_only_table(engine):
    assert list(FLAGS[engine].parse_only_releases()) == EXPECTED[engine]
    oldest_full = FLAGS[engine].releases()[0]
    assert not set(EXPECTED[engine]) & set(FLAGS[engine].releases())
    assert all(version_key(r) < version_key(oldest_full) for r in EXPECTED[engine])


@pytest.mark.parametrize("engine", FLAGS)
def test_each_delta_rebuilds_its_release_and_names_its_wheel(engine):
    flags = FLAGS[engine]
    history = flags.history()
    for release in history.releases:
        delta = history.delta(release)
        table = flags.raw_table(release)
        assert table[engine] == release  # the wheel's own version string, .postN included
        assert delta["wheel"]["file"].startswith(f"{engine}-{release}-")
        assert re.fullmatch(r"[0-9a-f]{64}", delta["wheel"]["sha256"])
        assert apply_delta(flags.raw_table(delta["base"]), delta) == table
        loaded = flags.load_table(release)
        assert loaded.release == release and len(loaded) == len(table["flags"])


def test_the_deltas_stay_small_on_disk():
    """Measured 2026-12-04: 58 kB for 31 vLLM releases, 137 kB for 31 sglang releases (a full
    table is 50-85 kB)."""
    for engine in FLAGS:
        directory = ROOT / f"src/resolvable/{engine}/flags/history"
        total = sum(p.stat().st_size for p in directory.glob("*.json"))
        assert total < 200_000, (engine, total)


@pytest.mark.parametrize(("engine", "release"), [(e, r) for e, rs in SAMPLE.items() for r in rs])
def test_pinned_sample_regenerates_from_its_wheel(engine, release):
    wheel = (vllm_wheel if engine == "vllm" else sglang_wheel)(release)  # CI: a missing one fails
    tool = _extractor(engine)
    assert tool.extract(engine, str(wheel)) == FLAGS[engine].raw_table(release)
    delta = FLAGS[engine].history().delta(release)
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == delta["wheel"]["sha256"]


def test_ci_fetches_the_pinned_sample():
    text = (ROOT / ".ci/run").read_text()
    for engine, releases in SAMPLE.items():
        for release in releases:
            assert f"{engine}=={release}" in text, (engine, release)


def test_a_parse_only_table_parses_with_its_own_flags():
    """vLLM 0.11.0 still has --swap-space (gone from 0.30.0) and the deprecated guided-decoding
    flags read with argparse's type=bool."""
    from resolvable.vllm.cli_args import VllmArgumentError, parse

    parsed = parse(["m", "--swap-space", "8", "--guided-decoding-disable-fallback", "1"], "0.11.0")
    assert ("--swap-space", "swap_space", 8.0) in parsed.passed
    assert ("--guided-decoding-disable-fallback", "guided_decoding_disable_fallback", True) in parsed.passed
    with pytest.raises(VllmArgumentError, match="unrecognized arguments: --swap-space"):
        parse(["m", "--swap-space", "8"], "0.34.0")


def test_import_reads_no_delta():
    code = (
        "import sys, resolvable.vllm, resolvable.sglang; "
        "print(json.dumps(['resolvable.flag_history' in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json; " + code], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [False]
