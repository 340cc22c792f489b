"""The peers' timing, as bench/best_time.hpp times ours: a few calls to warm
up, then the best of five rounds of repeated calls, each at least `round_s`
seconds; microseconds per call."""
import time


def best_us(f, round_s=0.2):
    for _ in range(3):
        f()
    best = float("inf")
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while True:
            f()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= round_s:
                break
        best = min(best, elapsed / calls)
    return best * 1e6
