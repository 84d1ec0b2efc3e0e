"""Result records of a search: scores, device-resident scores, messages.

A record is what scikit-learn's ``_fit_and_score`` returns (``fit_error``,
``test_scores``, ``train_scores``, ``n_test_samples``, ``fit_time``,
``score_time``), so that the search formats ``cv_results_`` with
scikit-learn's own code. Here are the helpers that build records: scoring a
fitted estimator (scikit-learn's ``_score``) or a batch model (one batched
call per metric), scores left on the device as :class:`Deferred` entries
until :func:`resolve_deferred` fetches them all at once, and scikit-learn's
progress and failure messages.
"""

from __future__ import annotations

import numbers
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from gpuml._array import to_host
from gpuml.metrics._scorer import MultimetricScorer
from gpuml.model_selection._batch import batch_response, is_out_of_memory


@dataclass(frozen=True)
class Options:
    """Settings shared by every task of one search."""

    error_score: object
    return_train_score: bool
    verbose: int
    n_splits: int
    n_candidates: int
    # Records keep the fitted estimator (cross_validate's return_estimator).
    return_estimator: bool = False


class Deferred:
    """A score still on the device: entry ``index`` of the array ``scores``."""

    __slots__ = ("index", "scores")

    def __init__(self, scores, index: int):
        self.scores, self.index = scores, index


def synchronize(xp) -> None:
    """Wait for the device (so that timings mean what they say)."""
    if xp is not None and xp is not np:
        xp.cuda.get_current_stream().synchronize()


def resolve_deferred(results: list[dict]) -> None:
    """Replace every :class:`Deferred` score by a float, in one transfer.

    All device score arrays are concatenated on the device and copied to the
    host together.
    """
    arrays: dict[int, object] = {}

    def collect(value):
        if isinstance(value, Deferred):
            arrays.setdefault(id(value.scores), value.scores)
        elif isinstance(value, dict):
            for v in value.values():
                collect(v)

    for result in results:
        collect(result.get("test_scores"))
        collect(result.get("train_scores"))
    if not arrays:
        return
    offsets, position = {}, 0
    for key, array in arrays.items():
        offsets[key] = position
        position += array.shape[0]
    # One small copy per array (a few per fold): joining them on the device
    # first would compile CuPy kernels on a fresh machine for no gain.
    host = np.concatenate(
        [np.asarray(to_host(a), dtype=np.float64).ravel() for a in arrays.values()]
    )

    def resolve(value):
        if isinstance(value, Deferred):
            return float(host[offsets[id(value.scores)] + value.index])
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        return value

    for result in results:
        for key in ("test_scores", "train_scores"):
            if key in result:
                result[key] = resolve(result[key])


# --------------------------------------------------------------------------
# Messages (scikit-learn's formats)
# --------------------------------------------------------------------------


def _params_message(params: dict) -> str:
    return ", ".join(f"{k}={params[k]}" for k in sorted(params))


def _format_score(value) -> str:
    if isinstance(value, Deferred):
        return "(on device)"
    return f"{value:.3f}"


def print_end(result, params, options: Options, candidate: int, split: int):
    """scikit-learn's ``[CV i/n] END params; score=... total time=...`` line."""
    if options.verbose <= 1:
        return
    progress = ""
    if options.verbose > 2:
        progress = f" {split + 1}/{options.n_splits}"
        if options.verbose > 9:
            progress += f"; {candidate + 1}/{options.n_candidates}"
    end = f"[CV{progress}] END "
    message = _params_message(params) + (";" if params else "")
    test, train = result["test_scores"], result.get("train_scores")
    if options.verbose > 2:
        if isinstance(test, dict):
            for name in sorted(test):
                message += f" {name}: ("
                if train is not None:
                    message += f"train={_format_score(train[name])}, "
                message += f"test={_format_score(test[name])})"
        elif train is not None:
            message += f", score=(train={_format_score(train)}, "
            message += f"test={_format_score(test)})"
        else:
            message += f", score={_format_score(test)}"
    total = result["fit_time"] + result["score_time"]
    message += f" total time={_short_time(total)}"
    print(end + "." * max(0, 80 - len(end) - len(message)) + message)


def _short_time(seconds: float) -> str:
    if seconds >= 60:
        return f"{seconds / 60:4.1f}min"
    return f"{seconds:5.1f}s" if seconds >= 0.1 else f"{seconds * 1000:5.1f}ms"


def _error_scores(scorer, value):
    if isinstance(scorer, MultimetricScorer):
        return dict.fromkeys(scorer._scorers, value)
    return value


def failed_result(scorer, options: Options, fit_time: float, n_test: int) -> dict:
    result = {
        "fit_error": traceback.format_exc(),
        "test_scores": _error_scores(scorer, options.error_score),
        "n_test_samples": n_test,
        "fit_time": fit_time,
        "score_time": 0.0,
    }
    if options.return_train_score:
        result["train_scores"] = _error_scores(scorer, options.error_score)
    return result


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------


def _scoring_failed(error_score, details: str) -> None:
    warnings.warn(
        "Scoring failed. The score on this train-test partition for these "
        f"parameters will be set to {error_score}. Details: \n{details}",
        UserWarning,
        stacklevel=3,
    )


def _check_number(score, name) -> float:
    if hasattr(score, "item"):
        try:
            score = score.item()
        except ValueError:
            pass
    if not isinstance(score, numbers.Number):
        raise ValueError(
            f"scoring must return a number, got {score} ({type(score)}) instead. "
            f"(scorer={name})"
        )
    return score


def score(estimator, X, y, scorer, score_params: dict, error_score):
    """scikit-learn's ``_score``: a float, or ``{name: float}`` for several."""
    try:
        if y is None:
            scores = scorer(estimator, X, **score_params)
        else:
            scores = scorer(estimator, X, y, **score_params)
    except Exception:
        if isinstance(scorer, MultimetricScorer) or error_score == "raise":
            raise
        _scoring_failed(error_score, traceback.format_exc())
        scores = error_score
    if isinstance(scores, dict):
        for name, value in scores.items():
            if isinstance(value, str):  # a failing metric's traceback
                _scoring_failed(error_score, value)
                value = error_score
            scores[name] = _check_number(value, name)
        return scores
    return _check_number(scores, scorer)


def score_batch(model, estimator, X, y, scorers: dict, metadata: dict, error_score):
    """``{name: (k,) scores}`` of a batch model: one batched call per metric.

    ``metadata`` maps each metric's name to the metadata routed to it. A
    metric whose batched call raises is scored candidate by candidate, so
    that only the failing candidates get ``error_score``; running out of
    memory is not a candidate's failure, and is raised for the search to
    score a smaller batch.
    """
    responses: dict = {}
    out = {}
    for name, scorer in scorers.items():
        key = repr((scorer._response_method, scorer._pos_label()))
        if key not in responses:
            responses[key] = batch_response(model, X, scorer, estimator)
        stack = responses[key]
        try:
            out[name] = scorer.score_predictions(y, stack, **metadata[name])
        except Exception as exc:
            if is_out_of_memory(exc) or (error_score == "raise" and len(model) == 1):
                raise
            out[name] = _score_each(scorer, stack, y, metadata[name], error_score)
    return out


def _score_each(scorer, stack, y, metadata, error_score) -> np.ndarray:
    scores = np.empty(stack.shape[0], dtype=np.float64)
    for i in range(stack.shape[0]):
        try:
            scores[i] = float(scorer._score_response(stack[i], y, None, metadata))
        except Exception as exc:
            if error_score == "raise" or is_out_of_memory(exc):
                raise
            _scoring_failed(error_score, traceback.format_exc())
            scores[i] = error_score
    return scores
