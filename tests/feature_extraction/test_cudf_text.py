"""HashingVectorizer on a cuDF string Series (skipped without cuDF).

The Series is read where it lies (character lengths and packed UTF-8 code
points, decoded on the device): the matrix is scikit-learn's for the same
strings, as a ``cupyx`` CSR matrix (device in, device out).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer as SkHashingVectorizer

from gpuml import config_context
from gpuml.feature_extraction.text import HashingVectorizer
from tests.feature_extraction.test_hashing import (
    assert_identical,
    make_corpus,
    random_settings,
)

pytestmark = pytest.mark.gpu
cudf = pytest.importorskip("cudf")


def assert_device_identical(got, want):
    """``got``, a cupyx CSR matrix, is scikit-learn's ``want``."""
    import cupyx.scipy.sparse as cusp

    assert cusp.isspmatrix_csr(got), type(got)
    assert_identical(type(want)(got.get()), want)


def test_matches_sklearn_on_random_settings(rng):
    # four-byte characters: mathematical letters and emoji
    corpus = [
        *make_corpus(rng, 40),
        "ΣΑΣ ΣΑΣ. ünïcödé\u3000 \U0001d518\U0001d52b \U0001f642\U0001f643",
        "a\x00b",
        "",
    ]
    ascii_corpus = [doc.encode("ascii", "ignore").decode() for doc in corpus]
    for settings in random_settings(rng, 30):
        for docs in (corpus, ascii_corpus):
            want = SkHashingVectorizer(**settings).transform(docs)
            got = HashingVectorizer(**settings).transform(cudf.Series(docs))
            assert_device_identical(got, want)


def test_host_settings_and_cpu_give_device_output(rng):
    """Settings the device cannot analyze, and device="cpu": the strings go
    to the host and the matrix comes back to the device."""
    docs = make_corpus(rng, 20)
    series = cudf.Series(docs)
    for settings, device in (
        (dict(tokenizer=str.split, token_pattern=None), "gpu"),
        (dict(analyzer="char", ngram_range=(2, 3)), "cpu"),
    ):
        want = SkHashingVectorizer(**settings).transform(docs)
        with config_context(device=device):
            got = HashingVectorizer(**settings).fit_transform(series)
        assert_device_identical(got, want)


def test_errors():
    with pytest.raises(ValueError, match=r"2 null entries.*fillna"):
        HashingVectorizer().transform(cudf.Series(["a b", None, None]))
    with pytest.raises(ValueError, match="must be a Series of strings"):
        HashingVectorizer().transform(cudf.DataFrame({"text": ["a b"]}))
    numbers = cudf.Series(np.arange(3))
    with pytest.raises(Exception) as ours:
        HashingVectorizer().transform(numbers)
    with pytest.raises(Exception) as theirs:
        SkHashingVectorizer().transform([0, 1, 2])
    assert type(ours.value) is type(theirs.value)


def assert_device_equal_counts(got, want):
    """``got``, a cupyx CSR matrix, is scikit-learn's ``want``, with integer
    counts as float64 (cupyx holds floating-point values only)."""
    import cupyx.scipy.sparse as cusp

    assert cusp.isspmatrix_csr(got), type(got)
    if want.dtype.kind in "iu":  # not by astype, which sorts the indices
        data = want.data.astype(np.float64)
        want = type(want)((data, want.indices, want.indptr), shape=want.shape)
    assert_identical(type(want)(got.get()), want)


def test_count_and_tfidf_vectorizers_from_a_series(rng):
    """The vocabulary and counts from the Series's device memory: the same
    vocabulary_ (in order) and matrix as scikit-learn's from the strings."""
    from sklearn.feature_extraction.text import CountVectorizer as SkCount
    from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf

    from gpuml.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from tests.feature_extraction.test_count import random_settings as count_settings

    corpus = [*make_corpus(rng, 40), "ΣΑΣ ΣΑΣ. ünïcödé \U0001f642", ""]
    ascii_corpus = [doc.encode("ascii", "ignore").decode() for doc in corpus]
    pairs = ((CountVectorizer, SkCount), (TfidfVectorizer, SkTfidf))
    for drawn in count_settings(rng, 12):
        for docs in (corpus, ascii_corpus):
            for ours, theirs in pairs:
                settings = dict(drawn)
                if ours is TfidfVectorizer:  # its dtype is a float one
                    settings["dtype"] = np.float64
                sk = theirs(**settings)
                try:
                    want = sk.fit_transform(docs)
                except ValueError as error:
                    with pytest.raises(ValueError) as raised:
                        ours(**settings).fit_transform(cudf.Series(docs))
                    assert str(raised.value) == str(error)
                    continue
                vectorizer = ours(**settings)
                got = vectorizer.fit_transform(cudf.Series(docs))
                assert_device_equal_counts(got, want)
                assert list(vectorizer.vocabulary_.items()) == list(
                    sk.vocabulary_.items()
                )
                again = vectorizer.transform(cudf.Series(docs[::-1]))
                assert_device_equal_counts(again, sk.transform(docs[::-1]))


def test_count_vectorizer_series_host_settings_and_errors(rng):
    from sklearn.feature_extraction.text import CountVectorizer as SkCount

    from gpuml.feature_extraction.text import CountVectorizer

    docs = make_corpus(rng, 20)
    settings = dict(tokenizer=str.split, token_pattern=None)  # host analysis
    want = SkCount(**settings).fit_transform(docs)
    got = CountVectorizer(**settings).fit_transform(cudf.Series(docs))
    assert_device_equal_counts(got, want)
    with pytest.raises(ValueError, match=r"1 null entries.*fillna"):
        CountVectorizer().fit_transform(cudf.Series(["a b", None]))
    with pytest.raises(ValueError, match="CountVectorizer must be a Series"):
        CountVectorizer().fit_transform(cudf.DataFrame({"text": ["a b"]}))


@pytest.mark.parametrize("first", ["hashing", "tfidf"])
def test_text_pipeline_search_from_a_series(first, rng, monkeypatch):
    """gpuml's search of a text pipeline takes the documents as a cuDF
    Series (folds are its rows; the vectorizers read them on the device,
    never copying them to the host), with the results of the same search
    from the Python list."""
    import cupyx.scipy.sparse as cusp
    from sklearn.pipeline import make_pipeline

    from gpuml.feature_extraction.text import (
        TfidfTransformer,
        TfidfVectorizer,
    )
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    topics = [["gpu", "cuda", "kernel", "memory"], ["cat", "dog", "fish", "bird"]]
    y = rng.integers(0, 2, size=150)
    docs = [
        " ".join(rng.choice(topics[label] + ["the", "a", "of"], size=12)) for label in y
    ]

    def pipeline():
        if first == "hashing":
            return make_pipeline(
                HashingVectorizer(n_features=2**12),
                TfidfTransformer(),
                LogisticRegression(),
            )
        return make_pipeline(TfidfVectorizer(), LogisticRegression())

    grid = {"logisticregression__C": [0.01, 1.0, 100.0]}
    want = GridSearchCV(pipeline(), grid, cv=3).fit(docs, y)
    series = cudf.Series(docs)

    def no_host_copy(*args, **kwargs):
        raise AssertionError("the documents were copied to the host")

    with monkeypatch.context() as patched:
        for name in ("to_pandas", "to_arrow", "to_numpy"):
            patched.setattr(cudf.Series, name, no_host_copy)
        got = GridSearchCV(pipeline(), grid, cv=3).fit(series, y)
    assert got.best_params_ == want.best_params_
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-6,
    )
    import cupy

    # labels from the device matrix the vectorizers made: CuPy (device out)
    predicted = got.predict(series)
    assert isinstance(predicted, cupy.ndarray)
    np.testing.assert_array_equal(predicted.get(), want.predict(docs))
    assert cusp.issparse(got.best_estimator_[:-1].transform(series))
