"""CountVectorizer and TfidfVectorizer against scikit-learn's, on each device.

Fresh random corpora (those of the hashing tests: accented and non-Latin
UTF-8, capital sigmas, emoji, empty documents, long tokens, whitespace of
every kind, and their ASCII versions) under a random sample of settings:
``vocabulary_`` must equal scikit-learn's, in the same order, and the
matrices must be identical (type, shape, dtypes, structure, the order of
the indices within rows, the bits of every value), from ``fit_transform``
and from ``transform``. On the GPU this checks the device's vocabulary and
counts; on the CPU, gpuml's classes are scikit-learn's code.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidfVectorizer
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

from gpuml import config_context
from gpuml.feature_extraction.text import CountVectorizer, TfidfVectorizer
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV
from tests.conftest import DEVICES
from tests.feature_extraction.test_hashing import assert_identical, make_corpus

_SETTING_SPACE = dict(
    analyzer=["word", "word", "char", "char_wb"],
    lowercase=[True, False],
    strip_accents=[None, "ascii", "unicode"],
    ngram_range=[(1, 1), (1, 3), (2, 2), (1, 2)],
    token_pattern=[r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"],
    min_df=[1, 2, 0.1],
    max_df=[1.0, 0.6, 25],
    max_features=[None, 5, 40],
    binary=[False, True],
    dtype=[np.int64, np.float32, np.float64, np.int32],
)


def random_settings(rng, n: int) -> list[dict]:
    settings = [
        {k: v[int(rng.integers(len(v)))] for k, v in _SETTING_SPACE.items()}
        for _ in range(n)
    ]
    for s in settings:
        if s["analyzer"] != "word":  # scikit-learn warns it is unused
            del s["token_pattern"]
    return settings


def assert_same_fit(got, want):
    """The fitted vectorizers' vocabularies: same items in the same order."""
    assert list(got.vocabulary_.items()) == list(want.vocabulary_.items())
    assert got.fixed_vocabulary_ == want.fixed_vocabulary_


def fit_both(settings, docs, device, sk_class=SkCountVectorizer, cls=CountVectorizer):
    """scikit-learn's and gpuml's vectorizer fitted on ``docs``, with their
    ``fit_transform`` outputs; a ValueError of scikit-learn's must be gpuml's."""
    sk = sk_class(**settings)
    try:
        want = sk.fit_transform(docs)
    except ValueError as error:
        with config_context(device=device), pytest.raises(ValueError) as raised:
            cls(**settings).fit_transform(docs)
        assert str(raised.value) == str(error)
        return None
    with config_context(device=device):
        ours = cls(**settings)
        got = ours.fit_transform(docs)
    assert_identical(got, want)
    assert_same_fit(ours, sk)
    return sk, ours


@pytest.mark.parametrize("device", DEVICES)
def test_matches_sklearn_on_random_settings(device, rng):
    corpus = make_corpus(rng, 40)
    ascii_corpus = [doc.encode("ascii", "ignore").decode() for doc in corpus]
    other = make_corpus(rng, 12)
    for settings in random_settings(rng, 30):
        for docs in (corpus, ascii_corpus):
            fitted = fit_both(settings, docs, device)
            if fitted is None:
                continue
            sk, ours = fitted
            with config_context(device=device):
                assert_identical(ours.transform(other), sk.transform(other))
                assert_identical(ours.transform(docs), sk.transform(docs))


@pytest.mark.parametrize("device", DEVICES)
def test_many_documents(device, rng):
    """Thousands of documents over a few hundred words: long token runs
    cross the kernels' tiles, terms recur in many documents."""
    words = [
        "".join(rng.choice(list("abcdeéxyzΣ"), size=int(rng.integers(1, 9))))
        for _ in range(400)
    ]
    docs = [
        " ".join(rng.choice(words, size=int(rng.integers(0, 60)))) for _ in range(3000)
    ]
    for settings in (
        dict(),
        dict(ngram_range=(1, 2), min_df=3, max_df=0.5),
        dict(max_features=100, binary=True),
    ):
        sk, ours = fit_both(settings, docs, device)
        with config_context(device=device):
            assert_identical(ours.transform(docs[:100]), sk.transform(docs[:100]))


@pytest.mark.parametrize("device", DEVICES)
def test_given_vocabulary(device, rng):
    corpus = make_corpus(rng, 30)
    learned = SkCountVectorizer(ngram_range=(1, 2)).fit(corpus).vocabulary_
    extra = ["absent term", "x²", "", "UPPER"]
    terms = list(dict.fromkeys(sorted(learned)[::3] + extra))
    vocabularies = [
        terms,
        {term: i for i, term in enumerate(reversed(terms))},
        set(terms[:10]),
    ]
    for vocabulary in vocabularies:
        settings = dict(vocabulary=vocabulary, ngram_range=(1, 2), lowercase=False)
        sk, ours = fit_both(settings, corpus, device)
        with config_context(device=device):
            assert_identical(ours.transform(corpus[:7]), sk.transform(corpus[:7]))


@pytest.mark.parametrize("device", DEVICES)
def test_tfidf_vectorizer(device, rng):
    corpus = make_corpus(rng, 40)
    for settings in (
        dict(),
        dict(ngram_range=(1, 2), sublinear_tf=True, norm="l1"),
        dict(smooth_idf=False, use_idf=True, min_df=2, dtype=np.float32),
        dict(max_features=20, norm=None, binary=True),
    ):
        sk, ours = fit_both(
            settings, corpus, device, SkTfidfVectorizer, TfidfVectorizer
        )
        np.testing.assert_array_equal(ours.idf_, sk.idf_)
        with config_context(device=device):
            assert_identical(ours.transform(corpus[:9]), sk.transform(corpus[:9]))


_TFIDF_SPACE = dict(
    norm=["l2", "l1", None],
    use_idf=[True, False],
    smooth_idf=[True, False],
    sublinear_tf=[False, True],
    min_df=[1, 2, 0.05],
    max_df=[1.0, 0.5, 30],
    max_features=[None, None, 25],
    binary=[False, True],
    ngram_range=[(1, 1), (1, 2)],
    dtype=[np.float64, np.float32],
)


def assert_same_output(got, want):
    """Identical matrices whose sorted-indices flags tell the same."""
    assert_identical(got, want)
    assert got.has_sorted_indices == want.has_sorted_indices


@pytest.mark.parametrize("device", DEVICES)
def test_tfidf_vectorizer_random_settings(device, rng):
    """The device's pruning, renumbering and weighting against scikit-learn's
    code: the same vocabulary, idf_ and bits, from fit_transform, from fit
    then transform, and for new documents."""
    corpus = make_corpus(rng, 60)
    other = make_corpus(rng, 10)
    for _ in range(16):
        settings = {k: v[int(rng.integers(len(v)))] for k, v in _TFIDF_SPACE.items()}
        fitted = fit_both(settings, corpus, device, SkTfidfVectorizer, TfidfVectorizer)
        if fitted is None:
            continue
        sk, ours = fitted
        if sk.use_idf:
            np.testing.assert_array_equal(ours.idf_, sk.idf_)
            assert ours.idf_.dtype == sk.idf_.dtype
        with config_context(device=device):
            assert_same_output(ours.fit_transform(corpus), sk.fit_transform(corpus))
            refit = TfidfVectorizer(**settings).fit(corpus)
            assert_same_output(refit.transform(other), sk.transform(other))
            assert_same_output(ours.transform(corpus), sk.transform(corpus))


@pytest.mark.parametrize("device", DEVICES)
def test_count_vectorizer_pruning_keeps_order(device, rng):
    """min_df/max_df prune columns on the device: the same vocabulary and
    matrix, each row's indices in scikit-learn's (unsorted) order."""
    docs = make_corpus(rng, 80)
    for settings in (dict(min_df=2), dict(max_df=0.3), dict(min_df=2, max_df=20)):
        sk, ours = fit_both(settings, docs, device)
        with config_context(device=device):
            assert_same_output(ours.fit_transform(docs), sk.fit_transform(docs))


@pytest.mark.parametrize("device", DEVICES)
def test_tfidf_vectorizer_sublinear_large_counts(device):
    """Counts past the device's table of sublinear values, next to small ones."""
    docs = ["ab " * 20_000 + "cd " * 3, "cd ef " * 9, "ab ef"]
    for dtype in (np.float64, np.float32):
        settings = dict(sublinear_tf=True, dtype=dtype)
        sk, ours = fit_both(settings, docs, device, SkTfidfVectorizer, TfidfVectorizer)
        with config_context(device=device):
            got = ours.transform(docs)
        np.testing.assert_allclose(
            got.toarray(), sk.transform(docs).toarray(), rtol=1e-6
        )


@pytest.mark.parametrize("device", DEVICES)
def test_tfidf_vectorizer_idf_setter_and_sparse_interface(device, rng):
    """A given idf_ weights on the device as scikit-learn's; the output
    follows scikit-learn's sparse_interface setting."""
    import sklearn

    corpus = make_corpus(rng, 30)
    sk = SkTfidfVectorizer().fit(corpus)
    with config_context(device=device):
        ours = TfidfVectorizer().fit(corpus)
        idf = np.linspace(1.0, 3.0, len(sk.vocabulary_))
        sk.idf_ = idf
        ours.idf_ = idf
        assert_same_output(ours.transform(corpus), sk.transform(corpus))
        if "sparse_interface" in sklearn.get_config():
            with sklearn.config_context(sparse_interface="spmatrix"):
                want = sk.transform(corpus)
                assert_same_output(ours.transform(corpus), want)
                assert_same_output(
                    CountVectorizer(min_df=2).fit_transform(corpus),
                    SkCountVectorizer(min_df=2).fit_transform(corpus),
                )


@pytest.mark.parametrize("device", DEVICES)
def test_char_analyzers(device, rng):
    """Character n-grams of all kinds of text: whitespace runs (collapsed by
    "char"), NUL and other control characters inside n-grams, words shorter
    and longer than the n-grams (char_wb's single padded word), documents
    shorter than every size."""
    corpus = [
        *make_corpus(rng, 40),
        "a\x00b\x00\x00c",
        "x",
        "\t\n  \u3000",
        "Ab  cDÉf\tgh\n\nIJ",
        "ünïcödé  ΣΑΣ ΣΑΣ.",
        "🙂🙂 🙃",
    ]
    other = [*make_corpus(rng, 10), "a\x00b", "never seen ☃"]
    for settings in (
        dict(analyzer="char"),
        dict(analyzer="char", ngram_range=(1, 4), lowercase=False),
        dict(analyzer="char", ngram_range=(3, 5), strip_accents="unicode"),
        dict(analyzer="char_wb"),
        dict(analyzer="char_wb", ngram_range=(1, 3), strip_accents="ascii"),
        dict(analyzer="char_wb", ngram_range=(2, 6), min_df=2, max_df=0.5),
        dict(analyzer="char_wb", ngram_range=(1, 1), binary=True, dtype=np.float32),
    ):
        sk, ours = fit_both(settings, corpus, device)
        with config_context(device=device):
            assert_identical(ours.transform(other), sk.transform(other))
        tfidf = fit_both(settings, corpus, device, SkTfidfVectorizer, TfidfVectorizer)
        assert tfidf is not None
    vocabulary = ["ab", " a", "a ", "é", "\x00", "b\x00", "absent", "Ab"]
    for analyzer in ("char", "char_wb"):
        settings = dict(
            analyzer=analyzer,
            ngram_range=(1, 2),
            vocabulary=vocabulary,
            lowercase=False,
        )
        sk, ours = fit_both(settings, corpus, device)
        with config_context(device=device):
            assert_identical(ours.transform(other), sk.transform(other))


@pytest.mark.gpu
@pytest.mark.parametrize(
    "settings",
    [
        dict(),
        dict(token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2)),
        dict(analyzer="char", ngram_range=(2, 4)),
        dict(analyzer="char_wb", strip_accents="unicode"),
    ],
)
def test_device_counts_without_sklearns_analysis(settings, rng, monkeypatch):
    """On the GPU these settings count on the device: scikit-learn's
    ``_count_vocab`` (its analyzer, its counting) is never called."""
    corpus = make_corpus(rng, 30)
    sk = SkCountVectorizer(**settings)
    want = sk.fit_transform(corpus)
    want_transformed = sk.transform(corpus[:5])

    def refuse(*args, **kwargs):
        raise AssertionError("scikit-learn's _count_vocab ran")

    monkeypatch.setattr(SkCountVectorizer, "_count_vocab", refuse)
    with config_context(device="gpu"):
        ours = CountVectorizer(**settings)
        assert_identical(ours.fit_transform(corpus), want)
        assert_identical(ours.transform(corpus[:5]), want_transformed)


@pytest.mark.parametrize("device", DEVICES)
def test_host_settings(device, rng):
    """Settings the device does not analyze: scikit-learn's code."""
    corpus = make_corpus(rng, 30)
    for settings in (
        dict(stop_words="english"),
        dict(tokenizer=str.split, token_pattern=None),
        dict(analyzer=lambda doc: doc.split()),
        dict(dtype=np.int16),
    ):
        fit_both(settings, corpus, device)


@pytest.mark.parametrize("device", DEVICES)
def test_errors_match_sklearn(device):
    cases = [
        (dict(), ["", " ", "a b c"], "empty vocabulary"),
        (dict(min_df=2), ["one two", "three four"], "After pruning, no terms remain"),
        (dict(max_df=1, min_df=2), ["ab bc", "bc cd"], "max_df corresponds to"),
        (dict(ngram_range=(2, 1)), ["a b"], "lower boundary larger"),
    ]
    for settings, docs, message in cases:
        with pytest.raises(ValueError, match=message):
            SkCountVectorizer(**settings).fit_transform(docs)
        with config_context(device=device), pytest.raises(ValueError, match=message):
            CountVectorizer(**settings).fit_transform(docs)


@pytest.mark.parametrize("device", DEVICES)
def test_pipeline_search_matches_sklearn(device, rng):
    """The text pipeline searched over C: scikit-learn's search of
    scikit-learn's pipeline and gpuml's search of gpuml's agree."""
    topics = [["gpu", "cuda", "kernel", "memory"], ["cat", "dog", "fish", "bird"]]
    y = rng.integers(0, 2, size=120)
    docs = [
        " ".join(rng.choice(topics[label] + ["the", "a", "of"], size=12)) for label in y
    ]
    grid = {"logisticregression__C": [0.01, 1.0, 100.0]}
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression

    want = SkGridSearchCV(
        make_pipeline(SkTfidfVectorizer(), SkLogisticRegression()), grid, cv=3
    ).fit(docs, y)
    with config_context(device=device):
        got = GridSearchCV(
            make_pipeline(TfidfVectorizer(), LogisticRegression()), grid, cv=3
        ).fit(docs, y)
    assert got.best_params_ == want.best_params_
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], want.cv_results_["mean_test_score"]
    )


@pytest.mark.parametrize("device", DEVICES)
def test_search_counts_each_fold_once_per_analysis(device, rng, monkeypatch):
    """Candidates that differ in what follows the counting (min_df, max_df,
    binary, norm, the final step's alpha) count a fold's training documents
    once per analysis setting (ngram_range here), with scikit-learn's
    scores and vocabulary."""
    from sklearn.naive_bayes import ComplementNB as SkComplementNB

    from gpuml.feature_extraction import _count
    from gpuml.naive_bayes import ComplementNB

    words = [f"w{i}" for i in range(40)]
    y = rng.integers(0, 3, size=150)
    docs = [
        " ".join(rng.choice(words[: 20 + 10 * label], size=rng.integers(3, 15)))
        for label in y
    ]
    grid = {
        "tfidfvectorizer__ngram_range": [(1, 1), (1, 2)],
        "tfidfvectorizer__min_df": [1, 3],
        "tfidfvectorizer__max_df": [0.5, 1.0],
        "tfidfvectorizer__binary": [False, True],
        "tfidfvectorizer__norm": ["l1", "l2"],
        "complementnb__alpha": [0.1, 1.0],
    }
    counted = []
    once = _count._DeviceCountMixin._count_vocab_once

    def spy(self, raw_documents, fixed_vocab):
        counted.append(fixed_vocab)
        return once(self, raw_documents, fixed_vocab)

    monkeypatch.setattr(_count._DeviceCountMixin, "_count_vocab_once", spy)
    want = SkGridSearchCV(
        make_pipeline(SkTfidfVectorizer(), SkComplementNB()), grid, cv=3
    ).fit(docs, y)
    with config_context(device=device):
        got = GridSearchCV(
            make_pipeline(TfidfVectorizer(), ComplementNB()), grid, cv=3
        ).fit(docs, y)
    if device == "cpu":
        # 3 folds x 2 ngram ranges x (training, test) rows, and the refit;
        # the candidates' test-fold transforms analyse nothing again
        assert counted.count(False) == 3 * 2 * 2 + 1
        assert counted.count(True) == 0
    else:  # 3 folds x 2 ngram ranges, and the refit
        assert counted.count(False) == 3 * 2 + 1
    assert got.best_params_ == want.best_params_
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        np.testing.assert_allclose(got.cv_results_[key], want.cv_results_[key])
    ours = got.best_estimator_[0]
    assert type(ours.vocabulary_) is dict  # refitted outside the folds
    assert ours.vocabulary_ == want.best_estimator_[0].vocabulary_
    np.testing.assert_array_equal(ours.idf_, want.best_estimator_[0].idf_)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
def test_shared_counts_give_each_candidate_scikit_learns_fit(device, rng, cls_name):
    """In a search's fold (its store open), candidates that share a fold's
    counts and differ in the pruning (min_df, max_df, max_features), binary
    and the weighting each get scikit-learn's vocabulary (items in order),
    matrix bit for bit and test-fold transform: the shared ranks of the
    terms (made once, the device's) number the kept terms as scikit-learn's
    sort does; the test fold's counts of every term (made once, numbered in
    sorted order) give each vocabulary's transform, its columns found from
    the map of the training terms its vocabulary holds (a FoldVocabulary,
    whose dict is made only when read; with max_features, a dict)."""
    from sklearn.feature_extraction import text as sk_text

    from gpuml._fold_store import shared_fold
    from gpuml.feature_extraction import text
    from gpuml.feature_extraction._count import FoldVocabulary

    docs = make_corpus(rng, 160)
    train, test = docs[:120], docs[120:]
    candidates = [
        {"min_df": 1},
        {"min_df": 3},
        {"max_df": 0.3},
        {"min_df": 2, "max_df": 0.5, "binary": True},
        {"max_features": 30},
        {"min_df": 2, "max_features": 10},
        {"max_df": 1.0, "min_df": 1, "binary": True},
    ]
    store = {}
    for ngram_range in [(1, 1), (1, 2)]:
        for params in candidates:
            settings = {"ngram_range": ngram_range, **params}
            sk = getattr(sk_text, cls_name)(**settings)
            want, want_test = sk.fit_transform(train), sk.transform(test)
            with config_context(device=device), shared_fold(store, (train, test)):
                ours = getattr(text, cls_name)(**settings)
                got, got_test = ours.fit_transform(train), ours.transform(test)
            assert_identical(got, want)
            assert_identical(got_test, want_test)
            if "max_features" not in params:
                # fitted and scored without the dict of its terms
                vocabulary = ours.vocabulary_
                assert isinstance(vocabulary, FoldVocabulary)
                assert vocabulary._dict is None
                assert len(vocabulary) == len(sk.vocabulary_)
            assert_same_fit(ours, sk)
            copied = pickle.loads(pickle.dumps(ours)).vocabulary_
            assert type(copied) is dict and copied == sk.vocabulary_
            # the ranks passed between the fit's steps are not kept
            assert not {"_shared_ranks", "_sorted_vocabulary"} & set(vars(ours))
    # a fit that fails between the counting and the pruning (scikit-learn's
    # max_df < min_df error) leaves nothing that changes the next fit
    with config_context(device=device), shared_fold(store, (train, test)):
        ours = getattr(text, cls_name)(min_df=50, max_df=10)
        with pytest.raises(ValueError, match="max_df corresponds to"):
            ours.fit(train)
        ours.set_params(min_df=2, max_df=1.0)
        got = ours.fit_transform(train)
    sk = getattr(sk_text, cls_name)(min_df=2, max_df=1.0)
    assert_identical(got, sk.fit_transform(train))
    assert_same_fit(ours, sk)
    # per analysis: the training counts, the test fold's (which its
    # transforms take their columns from) and the test terms' positions
    # among the training terms, kept
    assert len(store) == 6


@pytest.mark.parametrize("device", DEVICES)
def test_test_fold_of_a_given_vocabulary(device, rng):
    """A vocabulary the user gives (not in sorted order, with terms the fold
    lacks) transforms a search's test fold as scikit-learn's does, from the
    fold's shared counts (its dict gives the columns; the host sorts each
    row, the device counts it on its own); so does a candidate refitted
    after a search's fit, whose map of the fold's terms no longer applies."""
    from sklearn.feature_extraction import text as sk_text

    from gpuml._fold_store import shared_fold
    from gpuml.feature_extraction import text

    docs = make_corpus(rng, 120)
    train, test = docs[:90], docs[90:]
    words = sorted(sk_text.CountVectorizer().fit(docs).vocabulary_)
    # (a lowercased term may keep characters str.isupper calls upper case,
    # which scikit-learn warns of in a given vocabulary)
    words = [w for w in words if not any(map(str.isupper, w))]
    given = [*rng.permutation(words)[: len(words) // 2].tolist(), "notaword"]
    store = {}
    for cls_name in ("CountVectorizer", "TfidfVectorizer"):
        sk = getattr(sk_text, cls_name)(vocabulary=given).fit(train)
        with config_context(device=device), shared_fold(store, (train, test)):
            ours = getattr(text, cls_name)(min_df=2).fit(train)
            ours.set_params(vocabulary=given, min_df=1).fit(train)
            got = ours.transform(test)
        assert_identical(got, sk.transform(test))


@pytest.mark.parametrize("test_docs", [["!!", "...", ""], ["zzzz qqqq", "", "w1"]])
def test_test_fold_without_known_terms(test_docs):
    """A test fold with no term at all (its own counting would raise), or
    with terms the vocabulary does not hold, transforms as scikit-learn's."""
    from gpuml._fold_store import shared_fold

    train = ["w1 w2 w3", "w2 w3 w4", "w1 w4 w5 w5"]
    sk = SkCountVectorizer().fit(train)
    store = {}
    with shared_fold(store, (train, test_docs)):
        ours = CountVectorizer().fit(train)
        for _ in range(2):  # the second from the fold's store
            assert_identical(ours.transform(test_docs), sk.transform(test_docs))
