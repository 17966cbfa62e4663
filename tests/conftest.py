"""Hypothesis profiles for the whole suite, chosen with ``HYPOTHESIS_PROFILE`` (default "ci").

* ``ci``: 60 examples per property, no deadline, derandomized (the same examples on every run,
  so a CI failure reproduces locally with the same command);
* ``long``: 2,000 examples per property, random seeds; run it locally before a release:
  ``HYPOTHESIS_PROFILE=long pytest tests/reliability``.

A test that needs fewer examples (each one spawns real work) caps ``max_examples`` itself.

``golden`` (the sglang release the golden tests name) lives next to this file; it is put on
``sys.path`` here so every test directory imports it under any pytest import mode.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# No network in tests: a hub id that is not cached reads its bundled sample (or fails at once)
# instead of asking huggingface.co; the hub tests serve files from 127.0.0.1 and unset this.
os.environ["HF_HUB_OFFLINE"] = "1"

_COMMON = {
    "deadline": None,
    "suppress_health_check": (HealthCheck.too_slow, HealthCheck.data_too_large),
    "print_blob": True,
}

settings.register_profile("ci", max_examples=60, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=2000, **_COMMON)
settings.register_profile("dev", max_examples=20, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
