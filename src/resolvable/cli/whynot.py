"""`resolvable explain … --why-not VALUE [--field F]` for any pack, through the launch's verdict.

Would the launch start with ``F=VALUE`` (default field: ``attention_backend``)? The launch is
judged again with the value (``Launch.with_user``, ``Pack.verdict``): refused (the rule, the
engine's message, the fix), overridden (the rule that writes another value), or accepted (and
what else it changes). Invariants: ``--why-not`` is the tool's option, never an engine flag;
the answer's exit code is 0 (a question answered), 2 for a field or value the pack cannot hold.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import InvalidArgumentError


def why_not(pack: Any, launch: Any, raw: str, field: str | None, *, as_json: bool) -> int:
    from .._schema import schema_of
    from .explain import _coerce

    field = field or "attention_backend"
    args_class = getattr(pack, "args_class", None)  # a third pack: its registry's schema
    schema = schema_of(args_class) if args_class is not None else pack.registry.schema
    if field not in schema.resolvable:
        raise InvalidArgumentError(
            f"--why-not needs a field that rules decide; {field!r} is not one of the {pack.name} pack's"
        )
    spec = schema.spec(field)
    value = _coerce(spec, raw)
    spec.validate(value, what=f"--why-not {raw}")
    baseline, _ = pack.verdict(launch, memory=False)
    res, verdict = pack.verdict(launch.with_user(**{field: value}), trace=True, memory=False)
    answer: dict[str, Any] = {"schema": "resolvable.why-not/1", "field": field, "value": value}
    if verdict.status == "refused":
        answer.update(
            outcome="refused",
            rule=verdict.rule,
            location=verdict.location,
            reason=verdict.message,
            fix=verdict.fix,
        )
        text = (
            f"{field}={value!r} is refused by {verdict.rule} ({verdict.location}):\n  {verdict.message}"
            + (f"\n  fix: {verdict.fix}" if verdict.fix else "")
        )
    elif res[field] != value:
        exp = res.explain(field)
        last = next((s for s in reversed(exp.steps) if s.outcome in ("forced", "applied")), None)
        rule = last.rule if last is not None else "input normalisation"
        answer.update(outcome="overridden", final=res[field], rule=rule, reason=last.reason if last else None)
        text = f"{field}={value!r} is accepted as input but overridden: {rule} sets {res[field]!r}"
    else:
        changes = [c for c in (baseline.diff(res) if baseline is not None else ()) if c.field != field]
        answer.update(outcome="accepted", also_changes={c.field: [c.before, c.after] for c in changes})
        chosen = baseline[field] if baseline is not None else None
        text = f"{field}={value!r} would be accepted (without it: {chosen!r})."
        if changes:
            text += "\n  it would also change: " + ", ".join(
                f"{c.field} {c.before!r} -> {c.after!r}" for c in changes
            )
    answer["verdict"] = verdict.to_dict()
    print(json.dumps(answer, indent=2, default=repr) if as_json else text)
    return 0
