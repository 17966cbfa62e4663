"""The SGLang pack as the command line sees it: ``PACK``, a ``resolvable.packs.Pack``.

Invariant: this is the only module of the pack that ``resolvable.cli`` reaches (through
``resolvable.packs.get("sglang")``); every member names the module that holds it, imported on
first use, so building ``PACK`` imports nothing of the pack.
"""

from __future__ import annotations

from ..packs import Pack, member

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

_PKG = "resolvable.sglang"


class SglangPack(Pack):
    name = "sglang"
    title = "SGLang"
    frontend = "sglang"
    release_option = "--sglang-version"
    tp_field = "tp_size"
    context_field = "context_length"
    fit_trials = (
        ("kv_cache_dtype", ("fp8_e4m3",), ""),
        ("mem_fraction_static", (0.85, 0.88, 0.9, 0.93, 0.95), "; less room for activations"),
    )
    startup_label = member(f"{_PKG}._base", "STARTUP_LABEL")
    startup_phase = member(f"{_PKG}._base", "STARTUP_PHASE")
    env_vars = member(f"{_PKG}.api", "ENV_VARS")
    # SGLang's docker images (docs: lmsysorg/sglang:vX[-cuYYY][-arch], -rocmNNN-mi30x, -xpu, -npu);
    # the image's command is given by the container (`python3 -m sglang.launch_server ...`)
    images = ("lmsysorg/sglang",)
    distribution_images = ("rocm/sgl-dev", "lmsysorg/sglang-staging")

    # releases
    registry = member(_PKG, "registry")
    release = member(f"{_PKG}.api", "sglang_release")
    installed_version = member(f"{_PKG}.api", "installed_sglang_version")
    parse_only_releases = member(f"{_PKG}.flags", "parse_only_releases")
    flag_releases = member(f"{_PKG}.flags", "releases")
    removed_between = member(f"{_PKG}.flags", "removed_between")
    read_release_flags = member(f"{_PKG}.release_flags", "read_flags")
    rule_releases = member(f"{_PKG}.api", "rule_releases")

    # input: the flag table of a release (passed explicitly; None: the default release)
    option_history = member(f"{_PKG}.flags", "option_history")
    flag_table = member(f"{_PKG}.flags", "load_table")
    modelled_dests = member(f"{_PKG}.flags", "modelled_dests")
    parse_namespace = member(f"{_PKG}.cli_args", "parse_namespace")
    passed_attr = member(f"{_PKG}.cli_args", "PASSED")
    parse_launch = member(f"{_PKG}.launch", "parse_launch")
    recognises = member(f"{_PKG}.launch", "is_sglang_command")
    env_from_os = member(f"{_PKG}.api", "env_from_os")
    load_model = member(_PKG, "load_model")
    catalog = member(_PKG, "catalog")
    bundled = member(f"{_PKG}.models", "bundled")

    # resolution
    args_class = member(_PKG, "ServerArgs")
    resolve_server_args = member(_PKG, "resolve_server_args")
    resolve_launch = resolve_server_args
    release_keyword = "sglang_version"
    check_startup = member(_PKG, "check_startup")
    with_checked_fix = member(f"{_PKG}.fixes", "with_checked_fix")

    # tables: the grid of bundled models × presets, the support matrix, the capability table
    grid_models = member(f"{_PKG}.grid", "models")
    grid_presets = member(f"{_PKG}.grid", "presets")
    grid_cases = member(f"{_PKG}.grid", "cases")
    explicit_variants = member(f"{_PKG}.grid", "explicit_variants")
    matrix = member(f"{_PKG}.matrix", "compute")
    render_matrix = member(f"{_PKG}.matrix", "render")
    matrix_cell = member(f"{_PKG}.matrix", "Cell")
    compare_matrices = member(f"{_PKG}.matrix_diff", "compare")
    render_matrix_diff = member(f"{_PKG}.matrix_diff", "render_diff")
    capability_table = member(f"{_PKG}.capabilities", "backend_table")
    readme_backends = member(f"{_PKG}.capabilities", "README_BACKENDS")
    attention_backends = member(f"{_PKG}.choices", "ATTENTION_BACKENDS")
    memory_capacity = member(f"{_PKG}.memory", "capacity")

    @property
    def startup_log(self) -> Any:
        """The start-up log reader (``recognises``, ``read``, ``launch``) for ``check-log``."""
        import importlib

        return importlib.import_module(f"{_PKG}.startup_log")

    platform_facts = member(f"{_PKG}.platform_facts", "facts")

    # one launch, one verdict: the launch read with the release's flag table, the node check
    node_check = member(f"{_PKG}.node", "node_check")

    def build_launch(self, **inputs: Any) -> Any:
        from .launch import build_launch

        return build_launch(self, **inputs)

    def add_tool_options(self, parser: Any, command: str) -> tuple[str, ...]:
        """``--config PATH|SAMPLE`` before ``--``: the deprecated alias of the tool's
        ``--model-config`` (in a pasted command, ``--config`` is sglang's own YAML flag)."""
        import argparse

        parser.add_argument("--config", dest="model_config", metavar="PATH|SAMPLE", help=argparse.SUPPRESS)
        return ()

    def launch_config(self, launch: Any) -> Any:
        from .launch import launch_config

        return launch_config(self, launch)

    def resolve_kwargs(self, launch: Any) -> dict[str, Any]:
        from .launch import resolve_kwargs

        return resolve_kwargs(self, launch)

    def memory_report(self, res: Any, hf: Any, launch: Any) -> Any:
        from .launch import memory_report

        return memory_report(self, res, hf, launch)

    def add_cli_args(
        self, parser: argparse.ArgumentParser, release: str | None = None, *, skip: Sequence[str] = ()
    ) -> None:
        from .cli_args import add_cli_args

        add_cli_args(parser, skip=tuple(skip), release=release)

    def lint_attempts(self, release: str) -> list[tuple[str, Any]]:
        from .lint_cases import lint_attempts

        return lint_attempts(self, release)

    def lint_architectures(self) -> list[str]:
        from .lint_cases import lint_architectures

        return lint_architectures(self)

    def not_applicable(self, res: Any, hf: Any = None) -> frozenset[str]:
        """The fields the model or launch makes irrelevant: DSA, speculative decoding, hybrid
        linear attention / mamba, the hybrid SWA pool, diffusion LLM (``sglang.applicable``)."""
        from .applicable import not_applicable

        return not_applicable(res, hf)

    def change_since(self, res: Any, field: str, old: str, new: str) -> str | None:
        """The release range of the rule that decides ``field`` on ``new`` (``since 0.5.15``),
        narrowed by the named changes it asked; None when the rule applies to every release."""
        rule, location = res.decided_by(field)
        releases = self.rule_releases(rule, location or "", res)
        return None if releases is None or releases.unbounded else releases.describe(self.releases)

    def launch_command(self, model: str, flags: Sequence[str]) -> list[str]:
        return ["python", "-m", "sglang.launch_server", "--model-path", model, *flags]

    def parse_flags(
        self, namespace: argparse.Namespace, release: str | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        parsed = self.parse_namespace(namespace, release=release)
        return parsed.user, parsed.shown


PACK = SglangPack()
