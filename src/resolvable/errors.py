"""Exceptions raised by resolvable.

Invariant: every error a user can trigger (bad input, refused configuration, misuse of
the published context) is a ``ValueError`` subclass, so one ``except ValueError`` catches
them all and the CLI can turn them into a one-line message. Writes to frozen objects are
``AttributeError`` subclasses, like ``dataclasses.FrozenInstanceError``. Mistakes of a
rule author (bad registration, a rule that does not return a dict) are ``TypeError`` or
``RegistrationError`` and name the rule with its ``file:line``.

Every message is one line: ``str(error)`` escapes line breaks, other control characters and
characters that cannot be encoded (lone surrogates from undecodable paths), so a name or value
taken from the input can never split an error over two lines (``one_line``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ._fix import Fix

__all__ = [
    "ConfigError",
    "ConflictError",
    "DeclarationError",
    "EngineParserError",
    "FrozenContextError",
    "InvalidArgumentError",
    "LateDeclarationError",
    "OutputError",
    "ParityError",
    "RegistrationError",
    "ResolvableError",
    "RuleFailure",
    "UnknownChangeError",
    "UnknownPresetError",
    "closest",
    "one_line",
]


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def one_line(text: str) -> str:
    """``text`` with every non-printable character (line breaks, control characters, lone
    surrogates, other separators than the space) written as its escape (``\\n``, ``\\x1b``,
    ``\\udce9``): a message that always fits on one line and can always be encoded."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def closest(word: str, candidates: Iterable[str], *, cutoff: float = 0.5) -> str | None:
    """The candidate most similar to ``word`` (for "did you mean ...?" hints), or None; a higher
    ``cutoff`` keeps only near-typos (an engine flag: ``--calculate-kv-scales`` is not
    ``--disable-scale-out``)."""
    import difflib  # deferred: only error paths need it

    matches = difflib.get_close_matches(str(word), list(candidates), n=1, cutoff=cutoff)
    return matches[0] if matches else None


class ResolvableError(ValueError):
    """Base class of every user-facing error raised by resolvable (its text is one line)."""

    def __str__(self) -> str:
        return one_line(super().__str__())


class ConfigError(ResolvableError):
    """A model config (config.json, a directory, a hub id) is missing or malformed."""


class OutputError(ResolvableError):
    """A file or stream the tool writes could not be written (the previous file is unchanged)."""


class UnknownPresetError(ResolvableError):
    """A platform preset name is not known."""


class InvalidArgumentError(ResolvableError):
    """A user argument names an unknown field or holds a value outside its choices."""


class EngineParserError(InvalidArgumentError):
    """The engine's own argument parser refuses a flag or a value of the launch (an invalid
    choice, a JSON value its config class rejects): the engine would not start, so the launch
    commands report it as a ``refused`` verdict (stage ``parse``, exit code 1), not as the tool's
    input error."""


class DeclarationError(ResolvableError):
    """A rule declared a field that is not resolvable, or a value outside its choices."""

    rule: str | None = None
    location: str | None = None


class ConflictError(ResolvableError):
    """The configuration is refused: the inputs contradict a rule.

    ``fields`` names the arguments involved, ``fix`` says what to change (a ``Fix`` value, or
    prose; ``exc.fix`` is its text either way, ``exc.fix_value`` the value), ``upstream`` is the
    exception type the original engine raises in this situation (for fidelity checks), and
    ``rule``/``location``/``stage`` are filled in by the resolver with the rule that refused.
    ``phase`` is None for a refusal while resolving, or the check phase (e.g. ``"startup"``) of a
    refusal raised by ``check`` after the resolution succeeded; then ``resolution`` holds that
    accepted resolution.
    """

    def __init__(
        self,
        message: str,
        *,
        fields: Iterable[str] = (),
        fix: str | Fix | None = None,
        upstream: str = "ValueError",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = tuple(fields)
        #: The fix as data (``resolvable.rules.Fix``), or None when the rule gave prose (or none):
        #: the fix checker applies it as it is instead of reading flags out of ``fix``.
        self.fix_value: Fix | None = None
        if fix is not None and not isinstance(fix, str):
            if not isinstance(fix, Fix):
                raise TypeError(f"ConflictError(fix=...) takes a Fix or a str, not {type(fix).__name__}")
            self.fix_value, fix = fix, fix.render()
        self.fix = fix
        self.upstream = upstream
        self.rule: str | None = None
        self.location: str | None = None
        self.stage: str | None = None
        self.phase: str | None = None
        self.resolution: object | None = None
        #: For each field named in ``fields``: (current value, who set it, file:line or None), where
        #: "who" is a rule name, "user" or "default". Filled in by the resolver.
        self.origins: dict[str, tuple[object, str, str | None]] = {}
        #: The outcome of resolving again with what ``fix`` names (a ``resolvable._fixes.FixCheck``),
        #: once a caller has checked it; ``fix`` then holds the checked text.
        self.fix_check: object | None = None

    def __str__(self) -> str:
        text = self.message
        if self.fix:
            text += f" Fix: {self.fix}"
        if self.rule:
            phase = f", {self.phase} check" if self.phase else ""
            text += f" [refused by {self.rule} at {self.location}{phase}]"
        return one_line(text)


class RuleFailure(ResolvableError):
    """A rule crashed on this input (usually a config key of an unexpected type)."""


class ParityError(ResolvableError):
    """A published leaf would differ from the resolved value (a field changed undeclared)."""


class LateDeclarationError(ResolvableError):
    """A declaration arrived after the resolution was published."""


class RegistrationError(ResolvableError):
    """A rule or constant could not be registered (bad signature, unknown stage, ...)."""


class UnknownChangeError(RegistrationError):
    """A rule asked for a named change its pack's change table does not declare (a typo, or a
    change of another pack). The resolver adds the rule that asked (name and ``file:line``)."""


class FrozenContextError(AttributeError):
    """A write to a frozen object (published context, read-only view)."""
