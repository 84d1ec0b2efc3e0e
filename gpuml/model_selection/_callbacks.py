"""scikit-learn's callbacks (1.9+) around the search's candidate evaluations.

scikit-learn's search calls its callbacks' hooks on a tree of tasks: the
search's ``fit`` (the root), the search itself, one
``"candidate-split-evaluation"`` task per candidate and split, and the refit.
An evaluation's ``on_fit_task_begin`` is called, with the search as
``estimator`` and the training rows and their ``sample_weight``, just before
the candidate is fitted, inside ``propagate_callback_context`` of that
candidate (so that auto-propagated callbacks reach its own ``fit``);
``on_fit_task_end`` after it is scored, also when the fit failed.

:class:`EvaluationHooks` does the same for gpuml's ways of evaluating:

- a candidate fitted on its own, in process: exactly as scikit-learn;
- the candidates of a batched fit: each one's begin hook before the batch
  fits its fold, its end hook once the batch's scores are recorded. No
  estimator of that candidate is fitted, so nothing is propagated; the
  training rows are handed to the hooks lazily (a callable, which scikit-learn's
  context evaluates only for a hook that asks for them), so a batch that
  never forms them does not pay for them;
- work sent to other processes (joblib workers for ``n_jobs``, Dask
  workers): every begin hook before dispatch and every end hook after it, in
  the calling process (the workers' fits are not observed).

Each evaluation's hooks are called once, even when a failed batch refits its
candidates one by one. Without callbacks (or before scikit-learn 1.9) the
search passes :data:`NO_HOOKS`, which calls nothing; tasks run on workers get
it too.
"""

from __future__ import annotations

import contextlib


class NoHooks:
    """Calls nothing: the hooks of a search without callbacks."""

    def fitting(self, candidate, split, estimator, rows):
        return contextlib.nullcontext()

    def begin(self, candidate, split, rows) -> None:
        pass

    def end(self, candidate, split, rows) -> None:
        pass


NO_HOOKS = NoHooks()


class EvaluationHooks(NoHooks):
    """The evaluation hooks of one ``evaluate_candidates`` call.

    Parameters
    ----------
    search : estimator
        The search: what the hooks receive as ``estimator``.
    contexts : dict
        ``{(candidate, split): CallbackContext}``, created by the search in
        scikit-learn's order before any fit.

    ``rows`` is ``(X, y, fit_params)`` of the training rows, or a callable
    returning them. The hooks receive ``X``, ``y`` and, as ``metadata``,
    ``{"sample_weight": ...}`` when the fit is given sample weights.
    """

    def __init__(self, search, contexts: dict):
        self._search = search
        self._contexts = contexts
        self._begun: set = set()
        self._ended: set = set()

    def _arguments(self, rows) -> dict:
        if not callable(rows):
            X, y, fit_params = rows
            weight = fit_params.get("sample_weight")
            return {
                "X": X,
                "y": y,
                "metadata": None if weight is None else {"sample_weight": weight},
            }
        cache: list = []

        def part(i):
            def get():
                if not cache:
                    cache.append(rows())
                return cache[0][i]

            return get

        def metadata():
            weight = part(2)().get("sample_weight")
            return None if weight is None else {"sample_weight": weight}

        return {"X": part(0), "y": part(1), "metadata": metadata}

    @contextlib.contextmanager
    def fitting(self, candidate, split, estimator, rows):
        """Around the fit of ``estimator``: callbacks propagated into it, and
        the evaluation's begin hook (unless already called)."""
        context = self._contexts[candidate, split]
        with context.propagate_callback_context(estimator):
            self.begin(candidate, split, rows)
            yield

    def begin(self, candidate, split, rows) -> None:
        if (candidate, split) in self._begun:
            return
        self._begun.add((candidate, split))
        self._contexts[candidate, split].call_on_fit_task_begin(
            estimator=self._search, **self._arguments(rows)
        )

    def end(self, candidate, split, rows) -> None:
        if (candidate, split) in self._ended:
            return
        self._ended.add((candidate, split))
        self._contexts[candidate, split].call_on_fit_task_end(
            estimator=self._search, **self._arguments(rows)
        )
