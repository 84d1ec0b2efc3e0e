"""Progress of a search's fits (candidates x folds), from ``verbose=1``.

scikit-learn's searches print their own lines ("Fitting 5 folds for each of
20 candidates", and ``[CV] END ...`` from ``verbose=2``); gpuml adds how many
fits are done, the time elapsed and an estimate of the time left, updated as
each unit of work (a batched group on all its folds, a joblib batch, a Dask
task) completes. With tqdm installed it is a tqdm bar (``tqdm.auto``: a
widget in notebooks); without it, a line on stderr at most once a second and
at the end. ``verbose=0`` shows nothing, as in scikit-learn.
"""

from __future__ import annotations

import math
import sys
import time


class Progress:
    """Fits done out of ``total``, shown when ``verbose > 0``."""

    def __init__(self, total: int, verbose: int, *, desc: str = "gpuml search"):
        self.total, self.done, self.desc = total, 0, desc
        self.enabled = verbose > 0 and total > 0
        self.start = time.perf_counter()
        self._shown = -math.inf
        self._bar = None
        if self.enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, desc=desc, unit="fit")

    def advance_to(self, done: int) -> None:
        """``done`` fits are complete (counts only grow)."""
        if not self.enabled or done <= self.done:
            return
        step, self.done = done - self.done, done
        if self._bar is not None:
            self._bar.update(step)
            return
        now = time.perf_counter()
        if done < self.total and now - self._shown < 1.0:
            return
        self._shown = now
        elapsed = now - self.start
        left = elapsed * (self.total - done) / done
        print(
            f"[{self.desc}] {done}/{self.total} fits done in {elapsed:.1f} s, "
            f"about {left:.1f} s left",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
