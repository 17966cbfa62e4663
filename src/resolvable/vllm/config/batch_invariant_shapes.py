"""The matmul shapes vLLM tuned for batch invariance, per GPU family, with the release changes
that added to them (data).

``model_executor/determinism/batch_invariant_configs.py : _BATCH_INVARIANT_MATMUL_TUNED_CONFIGS``
keys (N, K) of vLLM 0.31.0-0.34.0 (0.30.0 has no breakable-graph rule for batch invariance), read
from the wheels. ``VllmConfig._uses_breakable_cudagraph_for_batch_invariance`` turns on breakable
CUDA graphs when a layer shape of the model is in its family's table. Invariant: data only; a
release's table is ``TUNED_SHAPES`` plus the ``TUNED_SHAPE_CHANGES`` entries whose named change it
has (``compilation.tuned_shapes``), never a copy per release.
"""

from __future__ import annotations

from ..changes import CHANGES

#: family → the tuned (N, K) shapes of 0.31.0, the first release with the rule.
TUNED_SHAPES: dict[str, frozenset[tuple[int, int]]] = {
    "ada": frozenset(
        {
            (2048, 2048),
            (2048, 6144),
            (4096, 2048),
            (12288, 2048),
            (151936, 2048),
        }
    ),
    "hopper": frozenset(
        {
            (2048, 2048),
            (2048, 6144),
            (4096, 2048),
            (12288, 2048),
            (151936, 2048),
        }
    ),
    "blackwell": frozenset(
        {
            (2048, 2048),
            (2048, 6144),
            (4096, 2048),
            (12288, 2048),
            (151936, 2048),
        }
    ),
    "sm120": frozenset(
        {
            (2048, 2048),
            (2048, 6144),
            (2560, 4096),
            (2560, 9728),
            (4096, 2048),
            (4096, 4096),
            (4096, 12288),
            (6144, 2560),
            (6144, 4096),
            (12288, 2048),
            (19456, 2560),
            (24576, 4096),
            (151936, 2048),
            (151936, 2560),
            (151936, 4096),
        }
    ),
}
#: (change, family, the shapes it added): a release with the change tunes them too.
TUNED_SHAPE_CHANGES = (
    (
        CHANGES.BATCH_INVARIANT_SM120_SHAPES,
        "sm120",
        frozenset(
            {
                (512, 2048),
                (768, 2560),
                (768, 4096),
                (1024, 2048),
                (1536, 2048),
                (1536, 2560),
                (1536, 4096),
                (2048, 256),
                (2048, 512),
                (2048, 768),
                (2048, 1024),
                (2048, 1536),
                (2048, 3072),
                (2432, 2560),
                (2560, 512),
                (2560, 1024),
                (2560, 1216),
                (2560, 2048),
                (2560, 2432),
                (2560, 4864),
                (3072, 2048),
                (3072, 2560),
                (3072, 4096),
                (4096, 512),
                (4096, 1024),
                (4096, 1536),
                (4096, 3072),
                (4096, 6144),
                (4864, 2560),
                (6144, 2048),
                (9728, 2560),
                (12288, 4096),
                (18992, 2048),
                (18992, 2560),
                (18992, 4096),
                (37984, 2048),
                (37984, 2560),
                (37984, 4096),
                (75968, 2048),
                (75968, 2560),
                (75968, 4096),
            }
        ),
    ),
    (
        CHANGES.BATCH_INVARIANT_HOPPER_SHAPES,
        "hopper",
        frozenset(
            {
                (4096, 4096),
                (4096, 12288),
                (4096, 14336),
                (6144, 4096),
                (24576, 4096),
                (28672, 4096),
                (128256, 4096),
                (151936, 4096),
            }
        ),
    ),
)
