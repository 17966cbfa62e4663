"""How explain names who refused a launch."""


def test_a_parser_refusal_names_the_engines_parser_not_none(capsys):
    """A value the engine's argument parser rejects carries no rule: explain says who refused it
    instead of printing ``refused by None  None``."""
    from resolvable.cli import main

    code = main(
        [
            "explain",
            "--platform",
            "h100",
            "--",
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--kv-cache-dtype",
            "int8",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "refused by the engine's argument parser" in out and "None" not in out
