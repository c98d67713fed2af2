# profile_periods.py: what the bench/real scripts read from a profile's
# experiments (level_noise.py, carry_over.py): the period of progress, in
# seconds of virtual time per visit of the first throughput point.
"""Periods of a saved profile's experiments."""


def period(e):
    """(duration - inserted delay) / visits of the first throughput point of
    experiment `e` (a dict of the profile's "experiments"); None when the
    point was not reached or no virtual time is left."""
    for p in e.get("points") or []:
        if p.get("kind", "throughput") == "throughput":
            visits = p.get("visits", 0)
            d = e["duration_s"] - e.get("delay_s", 0)
            return d / visits if visits > 0 and d > 0 else None
    return None
