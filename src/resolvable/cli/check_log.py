"""`resolvable check-log LOG`: read an engine's start-up log, rebuild the launch, predict it,
and show side by side what diverged and from which rule or estimate (``--json``:
``resolvable.check-log/1``).

Invariants: the logic is in ``resolvable.startup_log`` (and each pack's reader); this module only
parses arguments and prints. Exit 0 when nothing diverged, 1 when something did, 2 when the log
cannot be checked (one ``error:`` line naming the fix).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from ..errors import InvalidArgumentError
from ._common import EXIT_USAGE, _Parser

MAX_LOG_BYTES = 64 << 20


def _read(path: str) -> str:
    from ..startup_log import decode_log

    if path == "-":
        return decode_log(sys.stdin.buffer.read(MAX_LOG_BYTES))
    try:
        with open(path, "rb") as fh:
            return decode_log(fh.read(MAX_LOG_BYTES))
    except OSError as exc:
        raise InvalidArgumentError(
            f"check-log {path!r}: {exc.strerror or exc}; pass a readable log file or -"
        ) from None


def main(argv: Sequence[str]) -> int:
    """``argv`` after ``check-log``."""
    from .. import packs
    from ..startup_log import check_log

    p = _Parser(prog="resolvable check-log", description=__doc__.split("\n\n")[0])
    p.add_argument("log", help="a start-up log file (- for standard input)")
    p.add_argument(
        "--engine", choices=list(packs.names()), help="the engine (default: recognised from the log)"
    )
    p.add_argument(
        "--model-config",
        "--config",
        dest="config",
        help="the model's config.json, model directory or a bundled sample that stands for the model "
        "(when the log's path is not here; --config is the older spelling)",
    )
    p.add_argument("--platform", help="a platform preset (when the log does not name the GPU)")
    p.add_argument("--release", help="the engine release (default: the log's version)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(list(argv))
    text = _read(args.log)
    hf = None
    platform = None
    if args.config:
        from .. import packs as _packs

        hf = _packs.get(args.engine or _packs.names()[0]).load_model(args.config)
    if args.platform:
        from ._common import _platform

        platform = _platform(args.platform)
    result = check_log(text, engine=args.engine, hf=hf, platform=platform, release=args.release)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=repr))
    else:
        print("\n".join(result.lines()))
    if result.reason:
        sys.stdout.flush()
        print(f"error: check-log {args.log}: {result.reason}", file=sys.stderr)
        return EXIT_USAGE
    return 1 if result.diverged else 0
