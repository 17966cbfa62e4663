"""Exceptions raised by resolvable.

Invariant: every error a user can trigger (bad input, refused configuration, misuse of
the published context) is a ``ValueError`` subclass, so one ``except ValueError`` catches
them all and the CLI can turn them into a one-line message. Writes to frozen objects are
``AttributeError`` subclasses, like ``dataclasses.FrozenInstanceError``. Mistakes of a
rule author (bad registration, a rule that does not return a dict) are ``TypeError`` or
``RegistrationError`` and name the rule with its ``file:line``.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ConfigError",
    "ConflictError",
    "DeclarationError",
    "FrozenContextError",
    "InvalidArgumentError",
    "LateDeclarationError",
    "ParityError",
    "RegistrationError",
    "ResolvableError",
    "RuleFailure",
    "UnknownChangeError",
    "UnknownPresetError",
    "closest",
]


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate most similar to ``word`` (for "did you mean ...?" hints), or None."""
    import difflib  # deferred: only error paths need it

    matches = difflib.get_close_matches(str(word), list(candidates), n=1, cutoff=0.5)
    return matches[0] if matches else None


class ResolvableError(ValueError):
    """Base class of every user-facing error raised by resolvable."""


class ConfigError(ResolvableError):
    """A model config (config.json, a directory, a hub id) is missing or malformed."""


class UnknownPresetError(ResolvableError):
    """A platform preset name is not known."""


class InvalidArgumentError(ResolvableError):
    """A user argument names an unknown field or holds a value outside its choices."""


class DeclarationError(ResolvableError):
    """A rule declared a field that is not resolvable, or a value outside its choices."""

    rule: str | None = None
    location: str | None = None


class ConflictError(ResolvableError):
    """The configuration is refused: the inputs contradict a rule.

    ``fields`` names the arguments involved, ``fix`` says what to change, ``upstream`` is the
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
        fix: str | None = None,
        upstream: str = "ValueError",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = tuple(fields)
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
        return text


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
