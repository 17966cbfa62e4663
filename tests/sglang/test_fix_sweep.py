"""Every refusal in the standard grid has a checked fix (issue 11, item 3).

For each refused (model, platform, variant) of ``grid.cases()``, the fix is checked by
resolving again; every alternative the checked fix offers must then be accepted when the
flags are applied through the public entry point, and a fix with no accepted alternative
must say there is none. Nothing here lists rules: new refusals are swept the same way. The
sweep runs in the default release (a property of every release); the named case is 0.5.15's.
"""

from __future__ import annotations

from collections import Counter

from golden import GOLDEN, resolve_golden
from resolvable._fixes import apply, parse_fix
from resolvable._schema import schema_of
from resolvable.errors import ConflictError
from resolvable.sglang import ServerArgs, grid, resolve_server_args
from resolvable.sglang.fixes import check_refusal, flag_aliases

# golden cases of sglang 0.5.15 (spec): pinned (the named case; the sweep runs in the default release)


def test_every_refusal_in_the_grid_has_a_fix_that_holds_or_says_there_is_none():
    statuses: Counter[str] = Counter()
    failures = []
    for model, preset, variant, hf, platform, flags in grid.cases():
        try:
            resolve_server_args(hf, platform, **flags)
            continue
        except ConflictError as exc:
            refusal = exc
        check = check_refusal(refusal, hf, platform, {}, flags)
        statuses[check.status] += 1
        case = f"{model}@{preset}:{variant}"
        if check.status in ("verified", "corrected"):
            assert check.accepted, case
            for changes in check.accepted:
                user, env = apply(flags, {}, changes)
                try:
                    resolve_server_args(hf, platform, env, **user)
                except ConflictError as again:
                    failures.append(f"{case}: {check.text!r} is refused: {again}")
        elif check.status == "none":
            assert check.text.startswith("none on this platform"), case
        else:  # unchecked: the fix names no flag that changes anything
            assert check.status == "unchecked", case
            alternatives, _ = parse_fix(refusal.fix, schema_of(ServerArgs), flag_aliases())
            assert all(all(flags.get(n) == v for _, n, v in c) for c, _ in alternatives), case
    assert failures == []
    # the sweep exercised each outcome (figures are reported in docs/fidelity.md)
    assert statuses["verified"] and statuses["corrected"] and statuses["none"], statuses


def test_qwen3_next_on_mi300x_names_the_combination_that_is_accepted():
    from resolvable import Platform
    from resolvable.sglang import load_model

    hf, mi300x = load_model("qwen3-next-80b-a3b"), Platform.preset("mi300x")
    try:
        resolve_golden(hf, mi300x)
    except ConflictError as exc:
        refusal = exc
    check = check_refusal(refusal, hf, mi300x, sglang_version=GOLDEN)
    assert check.status == "corrected"
    flags = [a["flags"] for a in check.to_dict()["accepted"]]
    assert flags == [
        "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule",
        "--disable-radix-cache",
    ]
    resolve_golden(hf, mi300x, mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True)
