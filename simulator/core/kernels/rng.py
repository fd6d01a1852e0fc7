"""Per-game random streams: xoshiro256** seeded by SplitMix64 from (run seed, game index).

Game ``i`` of a run draws only from the stream ``stream_state(seed, i)``, so a game's outcome does
not depend on thread count, chunk size or backend, and any game can be replayed alone.

Two implementations give the same numbers bit for bit:

* ``Stream``: a plain-Python object used by the reference engines;
* ``next_u64``/``below``/``uniform`` over a ``uint64[4]`` state array: numba functions used by the
  kernels (they also run as plain Python through ``.py_func``).

``below(n)`` is Lemire's multiply-shift on the high 32 bits of one draw (bias < n / 2**32, about
1e-8 for the card counts used here); ``uniform()`` is the top 53 bits as a float in [0, 1).
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.jit import njit

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_words(seed: int, index: int) -> tuple[int, int, int, int]:
    """The four xoshiro256** state words of game ``index`` of a run seeded with ``seed``."""
    z = _mix64(_mix64(seed & MASK64) ^ (index & MASK64))
    words = []
    for _ in range(4):
        z = (z + GOLDEN) & MASK64
        words.append(_mix64(z))
    return tuple(words)


def stream_state(seed: int, index: int) -> np.ndarray:
    """``uint64[4]`` state array for the numba functions below."""
    return np.array(stream_words(seed, index), dtype=np.uint64)


class Stream:
    """Plain-Python xoshiro256** stream, identical to the numba functions."""

    __slots__ = ("s",)

    def __init__(self, seed: int, index: int):
        self.s = list(stream_words(seed, index))

    def next_u64(self) -> int:
        s = self.s
        x = (s[1] * 5) & MASK64
        result = ((((x << 7) | (x >> 57)) & MASK64) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & MASK64
        return result

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, ``n >= 1``."""
        return ((self.next_u64() >> 32) * n) >> 32

    def uniform(self) -> float:
        """Uniform float in ``[0, 1)``."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always")
def next_u64(s):
    """Advance the ``uint64[4]`` state ``s`` in place and return the next ``uint64``."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(inline="always")
def below(s, n):
    """Uniform ``int64`` in ``[0, n)`` from state ``s`` (``n >= 1``)."""
    return np.int64(((next_u64(s) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(inline="always")
def uniform(s):
    """Uniform ``float64`` in ``[0, 1)`` from state ``s``."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def seed_state(seed, index, s):
    """Fill ``s`` (``uint64[4]``) with the state of game ``index``; same as ``stream_words``."""
    z = _mix64_nb(_mix64_nb(np.uint64(seed)) ^ np.uint64(index))
    for k in range(4):
        z = z + np.uint64(GOLDEN)
        s[k] = _mix64_nb(z)


@njit(inline="always")
def _mix64_nb(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


NEVER = np.int64(1) << np.int64(60)
"""A tick that never comes (an event with probability 0)."""


@njit
def geometric(s, p):
    """Trials up to and including the first success, each succeeding with probability ``p``: ``int64 >= 1``.

    One draw (inversion), so a per-tick Bernoulli(``p``) process can jump straight to its next success;
    ``p <= 0`` returns :data:`NEVER` without drawing, ``p >= 1`` returns 1 without drawing."""
    if p <= 0.0:
        return NEVER
    if p >= 1.0:
        return np.int64(1)
    u = uniform(s)
    g = np.floor(np.log1p(-u) / np.log1p(-p))
    if g > 1e17:
        return NEVER
    return np.int64(g) + 1


@njit
def exponential(s, rate):
    """An ``Exp(rate)`` waiting time (one draw; ``rate <= 0`` returns ``inf`` without drawing)."""
    if rate <= 0.0:
        return np.inf
    return -np.log1p(-uniform(s)) / rate


@njit(refcount=False)
def shuffle(cards, n, rng):
    """Fisher–Yates over ``cards[:n]`` from the end, one :func:`below` per position (as in every cardsim engine;
    :func:`shuffle_py` is the same on a list). The xoshiro256** state is kept in locals while it runs (the same
    draws, without a memory round trip per draw: numba cannot prove that ``cards`` and ``rng`` do not alias)."""
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    for i in range(n - 1, 0, -1):
        x = s1 * np.uint64(5)
        r = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
        t = s1 << np.uint64(17)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
        j = np.int64(((r >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3


def shuffle_py(cards: list, rng: np.ndarray) -> None:
    """:func:`shuffle` on a Python list (the reference engines): Fisher–Yates from the end, one ``below`` each."""
    for i in range(len(cards) - 1, 0, -1):
        j = below(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
