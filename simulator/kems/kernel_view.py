"""M-perception in the Kem's kernel: the public record and what each player perceives of it.

The twin of ``Manche.publish`` / ``Manche.view`` (:mod:`simulator.kems.reference`). Every public change is
*published*: the public state (``loc``, the centre, every ``last_swap``) is copied into the record under the
tick it becomes visible from (the moves' tick for a turn-up or "Top", the next tick for exchanges, a sweep or
shown hands), one state per tick; the kernel publishes once at the phase change and once at the end of a tick
in which anything public changed (``ST_DIRTY``). States get increasing ids (``ST_REC_N`` so far) and live in a
ring of ``REC = MAX_LAG + 2`` (the one visible ``lag_ticks`` ago plus at most ``lag_ticks + 1`` newer ones).

Each state also keeps the open-exchange tick count before its tick and whether the ticks from then on are
open (a "Top" and a sweep are published too), which gives the count at any later tick up to the next state:
the silences are measured on it.

A player at tick ``t`` perceives the newest state visible by ``t - lag_ticks`` plus its own exchanges since
(kept per seat in a small ring). Its *view key* is that state's key when it has no such exchange, else -1; a
state's key is its id, or the previous state's key when only the open-exchange clock changed ("Top"): two moves
with the same key >= 0 see exactly the same view, which is what the kernel's proposal cache, contre horizon
and idle players key on. A player without exchanges of its own since reads the state's rows themselves (its
rank counts summarised once per state, :func:`state_pub`); one with reads buffers filled by
:func:`build_own_view`. Fields of ``g``: see :func:`simulator.kems.kernel_state.new_state`.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.core.rng import NEVER
from simulator.kems.codes import EMPTY, LOC_TABLE, LOC_UNKNOWN
from simulator.kems.kernel_state import OWN, REC, ST_OPEN_TICKS, ST_REC_N
from strategies.kems.views import summarise


@njit(refcount=False, inline="always")
def publish(g, visible, is_open, P, lag, fresh):
    """Manche.publish: the public state as it is now is visible from tick ``visible`` (``is_open``: the ticks
    from then on are ticks of open exchange; ``fresh``: loc, the centre or a last_swap changed, not only the
    clock). An idle player wakes when it perceives it, at ``visible + lag`` (the kernel visits that tick)."""
    st, rec_vis, rec_key = g[29], g[3], g[56]
    n = st[ST_REC_N]
    i = n - 1
    if rec_vis[i % REC] != visible:
        i = n
        st[ST_REC_N] = n + 1
        if not fresh:
            rec_key[i % REC] = rec_key[(i - 1) % REC]
    k = i % REC
    rec_vis[k] = visible
    if fresh:
        rec_key[k] = i
    loc, table, last_swap = g[4], g[1], g[11]
    rec_loc, rec_table, rec_last, rec_open = g[49], g[2], g[50], g[51]
    for c in range(52):
        rec_loc[k, c] = loc[c]
    for s in range(4):
        rec_table[k, s] = table[s]
    for p in range(P):
        rec_last[k, p] = last_swap[p]
    rec_open[k, 0] = st[ST_OPEN_TICKS]
    rec_open[k, 1] = is_open
    g[58][k] = 0
    idle, idle_until = g[47], g[48]
    for p in range(P):
        if idle[p] and idle_until[p] > visible + lag:
            idle_until[p] = visible + lag


@njit(refcount=False, inline="always")
def reset_record(g, visible, P):
    """A new manche's record: state 0, the public state as it is now (nothing known), visible from ``visible``;
    no exchange of anyone's yet."""
    st = g[29]
    st[ST_REC_N] = 0
    g[3][REC - 1] = visible + 1  # the slot before state 0 (id -1) holds another tick: publish starts state 0
    publish(g, visible, 0, P, 0, 1)
    for p in range(P):
        g[54][p] = 0


@njit(refcount=False, inline="always")
def visible_state(g, tick, lag):
    """The id of the newest state visible by ``tick - lag``."""
    rec_vis = g[3]
    i = g[29][ST_REC_N] - 1
    limit = tick - lag
    while rec_vis[i % REC] > limit:
        i -= 1
    return i


@njit(refcount=False, inline="always")
def next_perceived(g, i, lag):
    """The first tick at which a state newer than ``i`` is perceived (NEVER if there is none yet)."""
    if i + 1 >= g[29][ST_REC_N]:
        return NEVER
    return g[3][(i + 1) % REC] + lag


@njit(refcount=False, inline="always")
def open_before(g, i, tick):
    """Ticks of open exchange before ``tick``, for a tick at or after state ``i``'s and before the next one's."""
    k = i % REC
    rec_open = g[51]
    if rec_open[k, 1]:
        return rec_open[k, 0] + tick - g[3][k]
    return rec_open[k, 0]


@njit(refcount=False, inline="always")
def view_key(g, p, i):
    """State ``i``'s key if player ``p`` perceives it as it is (no exchange of its own since), else -1."""
    n = g[54][p]
    if n > 0 and g[52][p, (n - 1) % OWN] > g[3][i % REC]:
        return -1
    return g[56][i % REC]


@njit(refcount=False, inline="always")
def own_exchange(g, p, visible, slot, taken, given):
    """Remember an exchange of ``p``'s, visible to the others from ``visible``."""
    j = g[54][p] % OWN
    g[52][p, j] = visible
    g[53][p, j, 0] = slot
    g[53][p, j, 1] = taken
    g[53][p, j, 2] = given
    g[54][p] += 1


@njit(refcount=False)
def add_own_exchange(seen, loc, p, slot, taken, given):
    """M-perception: ``p``'s exchange added to an older public state (``seen`` ``int64[4]``, ``loc`` ``int8[52]``,
    in place; both engines use it). The state may be older than the one ``p`` exchanged on, so it can show at
    ``slot`` a card that has left it since (``p`` now knows it left, not where to: its place is unknown) or the
    taken card at another slot (it is in ``p``'s hand: that slot is shown free). So the view stays consistent:
    a card is in the centre it shows exactly when ``loc`` says so."""
    for s in range(4):
        if s != slot and seen[s] == taken:
            seen[s] = EMPTY
    if seen[slot] != EMPTY and seen[slot] != taken:
        loc[seen[slot]] = LOC_UNKNOWN
    seen[slot] = given
    loc[taken] = p
    loc[given] = LOC_TABLE


@njit(refcount=False, inline="always")
def state_pub(g, i, P):
    """The rank counts of state ``i``'s loc (``g[57]`` row), summarised the first time they are needed."""
    k = i % REC
    if not g[58][k]:
        summarise(g[49][k], P, g[57][k])
        g[58][k] = 1


@njit(refcount=False)
def build_own_view(g, p, i, P):
    """Manche.view for a player with exchanges of its own since state ``i`` (view key -1): the state and those
    exchanges into the view buffers (centre ``g[23]``, loc ``g[55]``, rank counts ``g[43]``). A player without
    reads the state's own rows (``g[2]``, ``g[49]``, :func:`state_pub`)."""
    k = i % REC
    seen, loc, rec_loc, rec_table = g[23], g[55], g[49], g[2]
    for c in range(52):
        loc[c] = rec_loc[k, c]
    for s in range(4):
        seen[s] = rec_table[k, s]
    own_vis, own_ex, n = g[52], g[53], g[54][p]
    first = n
    while first > 0 and first > n - OWN and own_vis[p, (first - 1) % OWN] > g[3][k]:
        first -= 1
    for j in range(first, n):
        add_own_exchange(seen, loc, p, own_ex[p, j % OWN, 0], own_ex[p, j % OWN, 1], own_ex[p, j % OWN, 2])
    summarise(loc, P, g[43])
