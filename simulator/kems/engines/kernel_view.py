"""M-perception in the Kem's kernel: the public record and what each player perceives of it.

The twin of ``Manche.publish`` / ``Manche.view`` (:mod:`simulator.kems.engines.reference`). Every public change is
*published*: the public state (``loc``, the centre, every ``last_swap``) is copied into the record under the
tick it becomes visible from (the moves' tick for a turn-up or "Top", the next tick for exchanges, a sweep or
shown hands), one state per tick; the kernel publishes once at the phase change and once at the end of a tick
in which anything public changed (``ST.dirty``). States get increasing ids (``ST.n_states`` so far) and live in a
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
:func:`build_own_view`. Fields of ``manche``: see :func:`simulator.kems.engines.kernel_state.new_state`.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import NEVER
from simulator.kems.engines.kernel_state import OWN, REC, ST
from simulator.kems.vocabulary.codes import EMPTY, LOC_TABLE, LOC_UNKNOWN
from simulator.kems.vocabulary.views import summarise


@njit(refcount=False, inline="always")
def publish(manche, visible, is_open, P, lag, fresh):
    """Manche.publish: the public state as it is now is visible from tick ``visible`` (``is_open``: the ticks
    from then on are ticks of open exchange; ``fresh``: loc, the centre or a last_swap changed, not only the
    clock). An idle player wakes when it perceives it, at ``visible + lag`` (the kernel visits that tick)."""
    st, rec_vis, rec_key = manche.st, manche.rec_visible, manche.rec_key
    n = st[ST.n_states]
    i = n - 1
    if rec_vis[i % REC] != visible:
        i = n
        st[ST.n_states] = n + 1
        if not fresh:
            rec_key[i % REC] = rec_key[(i - 1) % REC]
    k = i % REC
    rec_vis[k] = visible
    if fresh:
        rec_key[k] = i
    loc, table, last_swap = manche.loc, manche.table, manche.last_swap
    rec_loc, rec_table, rec_last, rec_open = manche.rec_loc, manche.rec_table, manche.rec_last_swap, manche.rec_open
    for c in range(52):
        rec_loc[k, c] = loc[c]
    for s in range(4):
        rec_table[k, s] = table[s]
    for p in range(P):
        rec_last[k, p] = last_swap[p]
    rec_open[k, 0] = st[ST.open_ticks]
    rec_open[k, 1] = is_open
    manche.rec_ranks_filled[k] = 0
    idle, idle_until = manche.idle, manche.idle_until
    for p in range(P):
        if idle[p] and idle_until[p] > visible + lag:
            idle_until[p] = visible + lag


@njit(refcount=False, inline="always")
def reset_record(manche, visible, P):
    """A new manche's record: state 0, the public state as it is now (nothing known), visible from ``visible``;
    no exchange of anyone's yet."""
    st = manche.st
    st[ST.n_states] = 0
    # the slot before state 0 (id -1) holds another tick: publish starts state 0
    manche.rec_visible[REC - 1] = visible + 1
    publish(manche, visible, 0, P, 0, 1)
    for p in range(P):
        manche.own_count[p] = 0


@njit(refcount=False, inline="always")
def visible_state(manche, tick, lag):
    """The id of the newest state visible by ``tick - lag``."""
    rec_vis = manche.rec_visible
    i = manche.st[ST.n_states] - 1
    limit = tick - lag
    while rec_vis[i % REC] > limit:
        i -= 1
    return i


@njit(refcount=False, inline="always")
def next_perceived(manche, i, lag):
    """The first tick at which a state newer than ``i`` is perceived (NEVER if there is none yet)."""
    if i + 1 >= manche.st[ST.n_states]:
        return NEVER
    return manche.rec_visible[(i + 1) % REC] + lag


@njit(refcount=False, inline="always")
def open_before(manche, i, tick):
    """Ticks of open exchange before ``tick``, for a tick at or after state ``i``'s and before the next one's."""
    k = i % REC
    rec_open = manche.rec_open
    if rec_open[k, 1]:
        return rec_open[k, 0] + tick - manche.rec_visible[k]
    return rec_open[k, 0]


@njit(refcount=False, inline="always")
def view_key(manche, p, i):
    """State ``i``'s key if player ``p`` perceives it as it is (no exchange of its own since), else -1."""
    n = manche.own_count[p]
    if n > 0 and manche.own_visible[p, (n - 1) % OWN] > manche.rec_visible[i % REC]:
        return -1
    return manche.rec_key[i % REC]


@njit(refcount=False, inline="always")
def own_exchange(manche, p, visible, slot, taken, given):
    """Remember an exchange of ``p``'s, visible to the others from ``visible``."""
    j = manche.own_count[p] % OWN
    manche.own_visible[p, j] = visible
    manche.own_exchanges[p, j, 0] = slot
    manche.own_exchanges[p, j, 1] = taken
    manche.own_exchanges[p, j, 2] = given
    manche.own_count[p] += 1


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
def state_pub(manche, i, P):
    """The rank counts of state ``i``'s loc (its ``manche.rec_rank_counts`` row), summarised the first time they
    are needed."""
    k = i % REC
    if not manche.rec_ranks_filled[k]:
        summarise(manche.rec_loc[k], P, manche.rec_rank_counts[k])
        manche.rec_ranks_filled[k] = 1


@njit(refcount=False)
def build_own_view(manche, p, i, P):
    """Manche.view for a player with exchanges of its own since state ``i`` (view key -1): the state and those
    exchanges into the view buffers (centre ``manche.own_table``, loc ``manche.own_loc``, rank counts
    ``manche.own_rank_counts``). A player without reads the state's own rows (``manche.rec_table``,
    ``manche.rec_loc``, :func:`state_pub`)."""
    k = i % REC
    seen, loc, rec_loc, rec_table = manche.own_table, manche.own_loc, manche.rec_loc, manche.rec_table
    for c in range(52):
        loc[c] = rec_loc[k, c]
    for s in range(4):
        seen[s] = rec_table[k, s]
    own_vis, own_ex, n = manche.own_visible, manche.own_exchanges, manche.own_count[p]
    first = n
    while first > 0 and first > n - OWN and own_vis[p, (first - 1) % OWN] > manche.rec_visible[k]:
        first -= 1
    for j in range(first, n):
        add_own_exchange(seen, loc, p, own_ex[p, j % OWN, 0], own_ex[p, j % OWN, 1], own_ex[p, j % OWN, 2])
    summarise(loc, P, manche.own_rank_counts)
