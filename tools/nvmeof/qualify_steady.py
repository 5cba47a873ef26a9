"""Steady-state detection in the manner of the SNIA Solid State Storage Performance Test
Specification (PTS): a measurement window of WINDOW consecutive rounds is steady when

  - data excursion: max(y) - min(y) over the window <= 20% of the window's average, and
  - slope excursion: the best-fit (least squares) line across the window rises or falls by
    no more than 10% of the average from the window's first round to its last, i.e.
    |slope| * (WINDOW - 1) <= 10% of the average (the range of the fit line over the window).

The tracked variable is IOPS per round.  Rounds are numbered from 1."""

WINDOW = 5
DATA_EXCURSION = 0.20
SLOPE_EXCURSION = 0.10


def fit(ys):
    """Least-squares line through (0, ys[0]) .. (n-1, ys[n-1]): (slope, intercept)."""
    n = len(ys)
    if n == 0:
        raise ValueError("no points")
    if n == 1:
        return 0.0, float(ys[0])
    mx = (n - 1) / 2.0
    my = sum(ys) / float(n)
    sxx = sum((x - mx) ** 2 for x in range(n))
    sxy = sum((x - mx) * (y - my) for x, y in zip(range(n), ys))
    slope = sxy / sxx
    return slope, my - slope * mx


def check_window(ys):
    """The SNIA criteria on one window of values YS.  Returns a dict: steady (bool), avg,
    range (max - min), range_limit (20% of avg), slope, slope_excursion (|slope| * (n-1)),
    slope_limit (10% of avg), intercept."""
    ys = [float(y) for y in ys]
    n = len(ys)
    avg = sum(ys) / n
    slope, intercept = fit(ys)
    rng = max(ys) - min(ys)
    sexc = abs(slope) * (n - 1)
    steady = avg > 0 and rng <= DATA_EXCURSION * avg and sexc <= SLOPE_EXCURSION * avg
    return {
        "steady": bool(steady), "avg": avg, "range": rng, "range_limit": DATA_EXCURSION * avg,
        "slope": slope, "intercept": intercept, "slope_excursion": sexc,
        "slope_limit": SLOPE_EXCURSION * avg,
    }


def evaluate(series, window=WINDOW):
    """Steady state of a series of per-round values (the rounds run so far).  Returns a dict:
    reached (bool), window_first / window_last (1-based round numbers of the window: the first
    steady window, or the last WINDOW rounds when none is steady, or all rounds when there
    are fewer than WINDOW) and check_window()'s numbers for that window."""
    n = len(series)
    if n == 0:
        return {"reached": False, "window_first": None, "window_last": None}
    if n >= window:
        for end in range(window, n + 1):
            c = check_window(series[end - window:end])
            if c["steady"]:
                c.pop("steady")
                return dict(c, reached=True, window_first=end - window + 1, window_last=end)
        first = n - window + 1
    else:
        first = 1
    c = check_window(series[first - 1:])
    c.pop("steady")
    return dict(c, reached=False, window_first=first, window_last=n)


def is_steady_now(series, window=WINDOW):
    """True when the last WINDOW values form a steady window (the stop test after each round)."""
    return len(series) >= window and check_window(series[-window:])["steady"]
