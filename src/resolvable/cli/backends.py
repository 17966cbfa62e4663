"""`resolvable backends`: the attention-backend capability table, generated from the rules.

Invariant: the table is computed by resolving probe inputs (``resolvable.sglang.capabilities``),
never written by hand; ``--format json`` keeps every probe with its rule, message and fix.
"""

from __future__ import annotations

import argparse
import sys

from .._files import shown
from ._common import UsageError, _csv_list


def cmd_backends(args: argparse.Namespace, ignored: list[str]) -> int:
    from .._platform import Platform
    from ..errors import closest
    from ._common import default_pack

    sglang = default_pack()
    ATTENTION_BACKENDS = sglang.attention_backends
    backends = _csv_list(args.backends)
    for b in backends or ():
        if b not in ATTENTION_BACKENDS:
            hint = closest(b, ATTENTION_BACKENDS)
            raise UsageError(
                f"unknown attention backend {b!r}"
                + (f"; did you mean {hint!r}?" if hint else "")
                + f" (choose from {', '.join(ATTENTION_BACKENDS)})"
            )
    platforms = _csv_list(args.platforms)
    for p in platforms or ():
        Platform.preset(p)  # unknown preset: UnknownPresetError with a suggestion
    text = sglang.capability_table(backends, platforms, sglang_version=args.release).render(args.format)
    if args.output:
        from .._files import write_atomic

        write_atomic(args.output, text, what="backend table output")
        print(f"wrote {shown(args.output)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
