"""Profile a game's kernel with Linux ``perf``, its compiled functions named: where the time of a run goes.

    perf record -o kernel.data .venv/bin/python bench/profile_kernel.py kamoul --games 1000000
    perf report -i kernel.data --sort sym

numba's machine code lives in anonymous memory, which ``perf report`` shows as bare addresses. After a warm-up
call this script writes ``/tmp/perf-<pid>.map`` (the file perf reads for JIT code: start, size, name per line)
with every function the process compiled or loaded from the cache, then plays ``--games`` games on one thread,
so the report names ``simulator.kamoul.engines.turn_loop.play_hand``, ``...score_kernel.score``... A function inlined
into another counts as its caller. Run it on an idle machine; a script, not a test.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time

from common import ROOT  # noqa: F401  (puts the checkout on sys.path)

import numba  # noqa: E402

from simulator.core.contract.registry import game_names, get_game  # noqa: E402
from simulator.core.storage.spec import build_spec  # noqa: E402
import simulator.games  # noqa: E402,F401  (registers the games)


def readable(symbol: str) -> str:
    """``simulator.kamoul.engines.turn_loop.play_hand`` for numba's mangled
    ``_ZN9simulator6kamoul11turn_loop9play_handB3v...`` (the length-prefixed names, without the signature); any
    other symbol as it is."""
    if not symbol.startswith("_ZN"):
        return symbol
    rest, parts = symbol[3:], []
    while rest[:1].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        size = int(rest[:digits])
        parts.append(rest[digits:digits + size])
        rest = rest[digits + size:]
    return ".".join(parts) or symbol


def write_perf_map(dispatcher) -> int:
    """Write ``/tmp/perf-<pid>.map`` for every symbol of the JIT engine that compiled ``dispatcher``; returns how
    many. A symbol's size is the distance to the next one (the engine does not keep sizes)."""
    library = next(iter(dispatcher.overloads.values())).library
    engine = library._codegen._engine  # numba's JitEngine: the symbols it defined, and their addresses
    addresses = {}
    for name in engine._defined_symbols:
        address = engine.get_function_address(name)
        if address:
            addresses[address] = name
    starts = sorted(addresses)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, start in enumerate(starts):
            gap = starts[i + 1] - start if i + 1 < len(starts) else 0
            out.write(f"{start:x} {gap if 0 < gap < 1 << 20 else 4096:x} {readable(addresses[start])}\n")
    return len(starts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=game_names())
    parser.add_argument("--games", type=int, default=1_000_000, help="games to profile, at the game's default level")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    play = get_game(args.game).simulate_chunk
    dispatcher = importlib.import_module(f"simulator.{args.game}.engines.kernels").simulate
    spec = build_spec(args.game, n=args.games, seed=args.seed)
    numba.set_num_threads(1)
    play(spec, 0, 1000, threads=1)  # compile or load, so that every function has its address
    print(f"{write_perf_map(dispatcher)} compiled functions named in /tmp/perf-{os.getpid()}.map")
    began = time.perf_counter()
    play(spec, 0, args.games, threads=1)
    seconds = time.perf_counter() - began
    print(f"{args.games:,} games at the {spec.level} level in {seconds:.1f} s: {args.games / seconds:,.0f}/s "
          "(rows made into frames included)")


if __name__ == "__main__":
    main()
