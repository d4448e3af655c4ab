"""The check shared by the kernels' ``simd_level`` switches (``trees._split``, ``_exp_kernels``)."""

from __future__ import annotations


def checked_level(level, supported: int) -> int:
    """``level`` as the vector level to use: 0 (no vector extension), 1 (AVX2), 2 (AVX-512), at most ``supported``.

    Raises
    ------
    ValueError
        When ``level`` is not an integer from 0 to the level this CPU supports.
    """
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= supported:
        raise ValueError(f"level: this CPU supports levels 0 to {supported}, got {level!r}")
    return level
