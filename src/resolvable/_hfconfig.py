"""A read-only view of a Hugging Face ``config.json``, and its loading.

Invariants:

* an ``HFConfig`` never changes after construction (nested dicts are wrapped, lists become
  tuples); rules read it with ``hf.get(key)`` or ``hf.key``;
* loading never lets a raw exception through for bad input: a missing file, a directory
  without ``config.json``, invalid JSON, NaN/Infinity, non-UTF-8 bytes, a non-object top level,
  absurd nesting or size, a malformed ``architectures`` entry all raise ``ConfigError`` that
  names the file and the fix;
* the same guarantees hold for the files read beside ``config.json`` (``sidecars``, and the
  files a ``parser`` hook reads): each is bounded, must be a regular file, and a malformed one
  is a ``ConfigError`` naming that file;
* values that did not come from the file (a rule pack's config-class defaults) are recorded in
  ``origins`` with where they came from; ``raw`` is the config as read, before any overlay;
* ``derived(key, fn)`` keeps ``fn(config)`` with the config (it never changes): a pack derives
  its view of a config once, not on every resolution.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from .errors import ConfigError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

_INF = float("inf")

__all__ = ["HFConfig", "MAX_CONFIG_BYTES", "find_in_hub_cache", "load_hf_config", "read_json_object"]

#: config.json files are a few KB; refuse anything absurd before reading it all.
MAX_CONFIG_BYTES = 16 * 2**20
_MAX_DEPTH = 64


def _utf8_clean(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _freeze(value: Any, depth: int, where: str) -> Any:
    if depth > _MAX_DEPTH:
        raise ConfigError(f"{where}: nested deeper than {_MAX_DEPTH} levels; this is not a model config")
    if isinstance(value, Mapping):
        return HFConfig(value, source=where, _depth=depth + 1)
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v, depth + 1, where) for v in value)
    if isinstance(value, str) and not _utf8_clean(value):
        raise ConfigError(
            f"{where}: contains a lone surrogate ({value.encode('utf-8', 'backslashreplace')!r}); "
            "config.json text must be valid Unicode"
        )
    if isinstance(value, float) and (value != value or value in (_INF, -_INF)):
        raise ConfigError(
            f"{where}: contains {value!r}, which JSON does not allow; use a finite number or null"
        )
    return value


class HFConfig(Mapping):
    """Read-only config: ``hf["model_type"]``, ``hf.model_type``, ``hf.get("index_topk")``.

    ``origins`` maps a key (dotted for nested objects: ``"text_config.sliding_window"``) to where
    its value came from when that is not ``source`` (e.g. a config-class default); ``sidecars``
    holds other JSON files of the model directory by file name (``hf_quant_config.json``).
    """

    __slots__ = (
        "_data",
        "_derived",
        "_origins",
        "_raw",
        "_sidecars",
        "_source",
        "architecture",
        "architectures",
        "text_config",
    )

    def __init__(
        self,
        data: Mapping[str, Any],
        *,
        source: str = "<dict>",
        origins: Mapping[str, str] | None = None,
        sidecars: Mapping[str, HFConfig] | None = None,
        raw: HFConfig | None = None,
        _depth: int = 0,
    ) -> None:
        if isinstance(data, HFConfig):
            origins = {**data._origins, **(origins or {})}
            sidecars = {**data._sidecars, **(sidecars or {})}
            raw = raw if raw is not None else data._raw
            data = data._data
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: a model config must be a JSON object, got {type(data).__name__}")
        origins = dict(origins or {})
        frozen = {}
        for key, value in data.items():
            if not isinstance(key, str) or not _utf8_clean(key):
                raise ConfigError(f"{source}: config keys must be valid Unicode strings, got {key!r}")
            frozen[key] = _freeze(value, _depth, source)
            if isinstance(frozen[key], HFConfig):  # a nested object carries its own origins
                prefix = key + "."
                inner = {k[len(prefix) :]: v for k, v in origins.items() if k.startswith(prefix)}
                if inner:
                    frozen[key] = HFConfig(frozen[key], source=source, origins=inner, _depth=_depth + 1)
        object.__setattr__(self, "_data", MappingProxyType(frozen))
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_origins", MappingProxyType(origins))
        object.__setattr__(self, "_sidecars", MappingProxyType(dict(sidecars or {})))
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_derived", None)
        if _depth == 0:
            self._check_architectures()
        # Derived once: rules read these on every resolution.
        archs = frozen.get("architectures")
        archs = archs if isinstance(archs, tuple) else ()
        inner = frozen.get("text_config") or frozen.get("llm_config")
        object.__setattr__(self, "architectures", archs)  # tuple of class names (may be empty)
        object.__setattr__(self, "architecture", archs[0] if archs else None)  # the dispatch key
        object.__setattr__(self, "text_config", inner if isinstance(inner, HFConfig) else self)

    def _check_architectures(self) -> None:
        archs = self._data.get("architectures")
        if archs is None:
            return
        if not isinstance(archs, tuple) or not all(isinstance(a, str) and a for a in archs):
            raise ConfigError(
                f"{self._source}: 'architectures' must be a list of class names such as "
                f'["LlamaForCausalLM"], got {_short(archs)}'
            )

    # -- Mapping ---------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise AttributeError(f"config has no key {key!r}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("HFConfig is read-only")

    def __repr__(self) -> str:
        return f"HFConfig({self.architecture or '?'} from {self._source})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HFConfig):
            return self._data == other._data
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:  # pickling / deepcopy: rebuild from plain data
        return (_rebuild, (self.to_dict(), self._source, dict(self.origins), dict(self._sidecars), self._raw))

    # -- accessors -------------------------------------------------------------------
    @property
    def source(self) -> str:
        return self._source

    @property
    def origins(self) -> Mapping[str, str]:
        """Key → where its value came from, for values not read from ``source`` (nested keys dotted)."""
        found = dict(self._origins)
        for key, value in self._data.items():
            if isinstance(value, HFConfig):
                found.update({f"{key}.{k}": v for k, v in value.origins.items()})
        return found

    def origin(self, key: str) -> str | None:
        """Where the value of ``key`` came from when not from ``source`` (None: from the file)."""
        return self._origins.get(key)

    @property
    def raw(self) -> HFConfig:
        """The config as read from ``source``, before any overlay (itself when none was applied)."""
        return self._raw if self._raw is not None else self

    @property
    def sidecars(self) -> Mapping[str, HFConfig]:
        """Other JSON files of the model directory, by file name (only those that exist)."""
        return self._sidecars

    def sidecar(self, name: str) -> HFConfig | None:
        return self._sidecars.get(name)

    def overlay(self, values: Mapping[str, Any], origins: Mapping[str, str]) -> HFConfig:
        """A copy with ``values`` set (dotted keys reach one nested object: ``"text_config.x"``),
        each recorded in ``origins`` as coming from ``origins[key]``; ``raw`` keeps the original."""
        data = self.to_dict()
        for key, value in values.items():
            outer, dot, inner = key.partition(".")
            if dot:
                nested = data.get(outer)
                if not isinstance(nested, dict):
                    raise ConfigError(f"{self._source}: cannot set {key!r}: {outer!r} is not an object")
                nested[inner] = value
            else:
                data[key] = value
        merged = {**self.origins, **{k: origins[k] for k in values}}
        return HFConfig(data, source=self._source, origins=merged, sidecars=self._sidecars, raw=self.raw)

    def derived(self, key: str, compute: Callable[[HFConfig], Any]) -> Any:
        """``compute(self)``, computed once per config object and kept with it: a config never
        changes, so a value derived from it alone (a rule pack's prepared view) need not be
        derived again on every resolution. ``key`` names the derivation; an exception is not kept.
        Copies and pickles start without the kept values."""
        kept = self._derived
        if kept is None:
            kept = {}
            object.__setattr__(self, "_derived", kept)
        try:
            return kept[key]
        except KeyError:
            value = kept[key] = compute(self)
            return value

    def with_sidecars(self, sidecars: Mapping[str, HFConfig]) -> HFConfig:
        return HFConfig(self, source=self._source, sidecars=sidecars)

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def get_typed(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        """``get`` that raises ``ConfigError`` naming the key when the value has the wrong type."""
        value = self._data.get(key, default)
        if value is None or value is default:
            return value
        if isinstance(value, bool) and kind in (int, float):
            ok = False
        else:
            try:
                ok = isinstance(value, kind)
            except TypeError:  # a rule author's mistake: say so, naming the key
                raise ConfigError(
                    f"get_typed({key!r}, {kind!r}): kind must be a type or a tuple of types"
                ) from None
        if not ok:
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise ConfigError(
                f"{self._source}: key {key!r} must be {names}, got {type(value).__name__} {_short(value)}; "
                "fix the config.json"
            )
        return value

    def to_dict(self) -> dict[str, Any]:
        def thaw(v: Any) -> Any:
            if isinstance(v, HFConfig):
                return v.to_dict()
            if isinstance(v, tuple):
                return [thaw(x) for x in v]
            return v

        return {k: thaw(v) for k, v in self._data.items()}


def _rebuild(
    data: dict[str, Any],
    source: str,
    origins: dict[str, str] | None = None,
    sidecars: dict[str, HFConfig] | None = None,
    raw: HFConfig | None = None,
) -> HFConfig:
    return HFConfig(data, source=source, origins=origins, sidecars=sidecars, raw=raw)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _stat(path: str) -> os.stat_result | None:
    """``os.stat`` that returns None for a missing path and a ``ConfigError`` for anything else
    (a symlink loop, a permission problem, a NUL byte)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot be read ({exc.strerror or exc}); pass a config.json or a model directory"
        ) from None
    except ValueError as exc:  # embedded NUL byte
        raise ConfigError(f"{path!r}: not a valid path ({exc})") from None


#: A pack's hook that builds the config from other files of the model: called with the model
#: name as given and a reader of that model's files (``read("params.json")`` → HFConfig or None
#: when absent); returns the config, or None to read ``config.json`` as usual.
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Reader = Callable[[str], "HFConfig | None"]
    Parser = Callable[[str, Reader], "HFConfig | None"]


def load_hf_config(
    location: str | os.PathLike[str],
    *,
    hub_cache: str | None = None,
    sidecars: Sequence[str] = (),
    parser: Parser | None = None,
) -> HFConfig:
    """Load a config from a ``config.json`` path, a model directory, or a hub id in the local cache.

    ``sidecars`` are file names read from the same directory (or hub snapshot) when present and
    attached as ``hf.sidecars``; ``parser`` may build the config from other files of a model
    directory or hub id instead of ``config.json`` (see ``Parser``). The values the engines
    compute with are checked (``_hfvalues.check_config_values``): a ``ConfigError`` naming the key.
    """
    from ._hfvalues import check_config_values

    hf = _load_hf_config(location, hub_cache=hub_cache, sidecars=sidecars, parser=parser)
    check_config_values(hf, hf.source)
    return hf


def _load_hf_config(
    location: str | os.PathLike[str],
    *,
    hub_cache: str | None,
    sidecars: Sequence[str],
    parser: Parser | None,
) -> HFConfig:
    try:
        text = os.fspath(location)
    except TypeError:
        raise ConfigError(
            f"the model location must be a path or a hub id (a string), got {type(location).__name__}"
        ) from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text:
        raise ConfigError("the model location is empty; pass a config.json, a model directory or a hub id")
    if "\x00" in text:
        raise ConfigError(f"{text!r}: not a valid path (it contains a NUL byte)")
    try:
        path = os.path.expanduser(text)
    except (RuntimeError, KeyError) as exc:  # '~unknownuser'
        raise ConfigError(f"{text}: cannot expand '~' ({exc})") from None
    st = _stat(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        directory = path
        hf = parser(text, _dir_reader(directory)) if parser is not None else None
        if hf is None:
            path = os.path.join(directory, "config.json")
            st = _stat(path)
            if st is None:
                raise ConfigError(
                    f"{text}: directory has no config.json; point at a model directory or a config.json file"
                )
            hf = _read_config_file(path, st)
        return _attach(hf, _dir_reader(directory), sidecars)
    if st is None:
        if not _looks_like_repo_id(text):
            raise ConfigError(f"{text}: no such file or directory")
        reader = _hub_reader(text, hub_cache)
        hf = parser(text, reader) if parser is not None else None
        if hf is None:
            cached = find_in_hub_cache(text, hub_cache)
            if cached is None:
                raise ConfigError(
                    f"{text}: no such file or directory (not found in the local Hugging Face cache either; "
                    f"download it with `hf download {text} config.json`)"
                )
            path = str(cached)
            st = _stat(path)
            if st is None:
                raise ConfigError(f"{text}: the cached config.json at {path} is missing")
            hf = _read_config_file(path, st)
        return _attach(hf, reader, sidecars)
    hf = _read_config_file(path, st)
    return _attach(hf, _dir_reader(os.path.dirname(path) or "."), sidecars) if sidecars else hf


def _attach(hf: HFConfig, read: Reader, names: Sequence[str]) -> HFConfig:
    found = {name: doc for name in names if (doc := read(name)) is not None}
    return hf.with_sidecars(found) if found else hf


def _dir_reader(directory: str) -> Reader:
    def read(name: str) -> HFConfig | None:
        path = os.path.join(directory, name)
        st = _stat(path)
        return None if st is None else read_json_object(path, st, what=name)

    return read


def _hub_reader(repo_id: str, hub_cache: str | None) -> Reader:
    def read(name: str) -> HFConfig | None:
        cached = find_in_hub_cache(repo_id, hub_cache, filename=name)
        if cached is None:
            return None
        st = _stat(str(cached))
        return None if st is None else read_json_object(str(cached), st, what=name)

    return read


def _read_config_file(path: str, st: os.stat_result) -> HFConfig:
    return read_json_object(path, st)


def read_json_object(path: str, st: os.stat_result | None = None, *, what: str = "config.json") -> HFConfig:
    """Read one model JSON file (config.json, or the file ``what`` beside it) safely: a regular
    file, at most ``MAX_CONFIG_BYTES``, UTF-8, a JSON object; anything else is a ``ConfigError``
    naming ``path``. Only a config.json must have a valid ``architectures`` entry."""
    from ._files import read_bounded, shown  # file reads only (import cost)

    if st is None:
        st = _stat(path)
        if st is None:
            raise ConfigError(f"{path}: no such file or directory")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(
            f"{shown(path)}: not a regular file (a FIFO, device or similar); pass a {what} file"
        )
    raw = read_bounded(path, MAX_CONFIG_BYTES, what=what)  # stat, then a non-blocking bounded read
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); {what} must be UTF-8 JSON") from None
    if not text.strip():
        raise ConfigError(
            f"{path}: file is empty; expected a JSON object"
            + (" with 'architectures'" if what == "config.json" else "")
        )
    _check_structure(text, path, what)
    import json  # deferred: keeps `import resolvable` light

    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ConfigError(f"{path}: JSON nested too deeply; this is not a model config") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid JSON ({exc})") from None
    return HFConfig(data, source=str(path), _depth=0 if what == "config.json" else 1)


#: The most values (objects, arrays and their elements) a model JSON file may hold. The largest
#: real config.json files (per-layer lists, quantization module lists) hold a few tens of
#: thousands; a few MB of ``{},{},…`` hold millions, each a Python object, and would exhaust
#: memory long before the byte limit. Counted before parsing.
MAX_CONFIG_VALUES = 500_000
_STRING = None  # compiled on first use (re is not imported by `import resolvable`)


def _check_structure(text: str, path: str, what: str) -> None:
    """Refuse a JSON text with more than ``MAX_CONFIG_VALUES`` values, before building any."""
    # Every value but the first follows a ',' or opens after '[' / '{' / ':': counting those
    # characters bounds the number of values from above, in C speed. Only when that bound is
    # over the cap are the strings (whose contents may hold the same characters) taken out.
    upper = text.count(",") + text.count("[") + text.count("{") + 1
    if upper <= MAX_CONFIG_VALUES:
        return
    global _STRING
    if _STRING is None:
        import re

        _STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
    bare = _STRING.sub("", text)
    count = bare.count(",") + bare.count("[") + bare.count("{") + 1
    if count > MAX_CONFIG_VALUES:
        from ._files import shown

        raise ConfigError(
            f"{shown(path)}: holds about {count:,} JSON values, more than the {MAX_CONFIG_VALUES:,} a {what} "
            "may hold; this is not a model config"
        )


def _looks_like_repo_id(text: str) -> bool:
    parts = text.split("/")
    return len(parts) == 2 and all(parts) and not text.startswith((".", "~")) and not text.endswith(".json")


def _hub_cache_dir(explicit: str | None) -> Path:
    from pathlib import Path

    if explicit:
        return Path(explicit)
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    return Path(home) / "hub"


#: A ref file holds one commit hash (40 hex digits and a newline); anything longer is refused.
_MAX_REF_BYTES = 256


def find_in_hub_cache(
    repo_id: str, hub_cache: str | None = None, filename: str = "config.json"
) -> Path | None:
    """The cached ``filename`` (default ``config.json``) of ``repo_id`` (offline), or None.

    Reads the cache layout that ``huggingface_hub`` writes (``models--org--name/refs/main`` →
    ``snapshots/<rev>/config.json``) itself, with the guards of every other read: ``refs/main``
    must be a small regular file (a FIFO is refused without blocking, ``/dev/zero`` or a large
    sparse file without reading it), and must name one revision directory (no ``/``, no ``..``).
    A malformed ``refs/main`` is a ``ConfigError`` naming it. ``huggingface_hub`` itself is not
    used for the lookup: its reader opens ``refs/main`` without these guards.
    """
    if "\x00" in repo_id or not _looks_like_repo_id(repo_id):
        return None
    repo_dir = _hub_cache_dir(hub_cache) / ("models--" + repo_id.replace("/", "--"))
    ref_path = repo_dir / "refs" / "main"
    try:
        has_ref = os.path.lexists(ref_path)
    except (OSError, ValueError):
        has_ref = False
    if has_ref:  # the revision refs/main points at
        from ._files import read_bounded, shown  # file reads only (import cost)

        raw = read_bounded(ref_path, _MAX_REF_BYTES, what="Hugging Face cache ref (refs/main)")
        try:
            ref = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            ref = ""
        if not ref or not ref.isprintable() or "/" in ref or "\\" in ref or ref in (".", ".."):
            raise ConfigError(
                f"{shown(ref_path)}: does not hold a revision (expected a commit hash); "
                "delete it or download the model again"
            )
        candidate = repo_dir / "snapshots" / ref / filename
        if _is_file(candidate):
            return candidate
    try:  # otherwise the newest snapshot that has the file
        snapshots = []
        with os.scandir(repo_dir / "snapshots") as entries:
            for n, entry in enumerate(entries):
                if n >= _MAX_SNAPSHOTS:
                    break
                snapshots.append((entry.stat().st_mtime, entry.name))
    except (OSError, ValueError):
        return None
    for _, name in sorted(snapshots, reverse=True):
        candidate = repo_dir / "snapshots" / name / filename
        if _is_file(candidate):
            return candidate
    return None


#: Snapshots looked at when refs/main names none: a cache holds a handful per model.
_MAX_SNAPSHOTS = 1024


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
