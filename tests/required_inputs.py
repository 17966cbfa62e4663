"""Tests whose inputs live outside the repository: the sglang wheels and a headless browser.

In CI (``CI`` is set to ``true``/``1``, as ``.ci/run`` and every CI service set it), a missing
input FAILS the test: ``.ci/run`` fetches the wheels (``pip download --no-deps``) into a reused
cache directory and installs chromium and chromedriver, so a missing one is a broken CI, not a
reason to check less. On a developer's machine the test skips, and pytest prints the reason
(``-rs`` in the pytest options).

``RESOLVABLE_SGLANG_WHEELS`` and ``RESOLVABLE_VLLM_WHEELS`` name the wheel directories
(``.ci/run`` sets both to its cache; default ``/work/wheels``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

WHEELS = Path(os.environ.get("RESOLVABLE_SGLANG_WHEELS", "/work/wheels"))
VLLM_WHEELS = Path(os.environ.get("RESOLVABLE_VLLM_WHEELS", "/work/wheels"))


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing_input(reason: str) -> None:
    """Fail (in CI) or skip (elsewhere) because an input outside the repository is missing."""
    if in_ci():
        pytest.fail(f"CI must run this test, but {reason} (.ci/run provides it)", pytrace=False)
    pytest.skip(reason)


def sglang_wheel(release: str) -> Path:
    """The sglang wheel of ``release`` in ``WHEELS``; missing: ``missing_input``."""
    found = sorted(WHEELS.glob(f"sglang-{release}-*.whl"))
    if not found:
        missing_input(
            f"the sglang {release} wheel is not in {WHEELS} (pip download --no-deps sglang=={release})"
        )
    return found[0]


def vllm_wheel(release: str) -> Path:
    """The vLLM wheel of ``release`` in ``VLLM_WHEELS``; missing: ``missing_input``."""
    found = sorted(VLLM_WHEELS.glob(f"vllm-{release}-*.whl"))
    if not found:
        missing_input(
            f"the vLLM {release} wheel is not in {VLLM_WHEELS} (pip download --no-deps vllm=={release})"
        )
    return found[0]
