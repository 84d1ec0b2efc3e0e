"""gpuml's TruncatedSVD against scikit-learn's, on every backend: dense and
sparse (CSR/CSC, never densified) input, both algorithms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import decomposition as skd

from gpuml.decomposition import TruncatedSVD


def _tfidf_like(rng, shape=(80, 60), density=0.15, dtype=np.float64):
    """A sparse matrix like a tf-idf one, with a few dominant directions."""
    X = sp.random(*shape, density=density, format="csr", random_state=rng)
    X.data = 1 + np.log(X.data + 1e-3)
    heavy = sp.csr_matrix(
        rng.standard_normal((shape[0], 3)) * [8.0, 5.0, 3.0]
    ) @ sp.csr_matrix(rng.standard_normal((3, shape[1])))
    X = (X + heavy.multiply(X != 0)).tocsr()
    return X.astype(dtype)


def _compare(ours, theirs, backend, rtol, atol):
    for name in (
        "components_",
        "explained_variance_",
        "explained_variance_ratio_",
        "singular_values_",
    ):
        value = getattr(ours, name)
        backend.assert_family(value, dtype=getattr(theirs, name).dtype)
        np.testing.assert_allclose(
            backend.to_numpy(value),
            getattr(theirs, name),
            rtol=rtol,
            atol=atol,
            err_msg=name,
        )


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
@pytest.mark.parametrize("fmt", ["csr", "csc", "dense"])
@pytest.mark.parametrize("shape", [(80, 60), (40, 90)])
def test_matches_sklearn(backend, rng, algorithm, fmt, shape):
    X = _tfidf_like(rng, shape)
    params = dict(n_components=3, algorithm=algorithm, n_iter=7, random_state=0)
    ours = TruncatedSVD(**params)
    theirs = skd.TruncatedSVD(**params)
    X_host = X.toarray() if fmt == "dense" else X.asformat(fmt)
    out = ours.fit_transform(backend.as_format(X.toarray(), fmt))
    expected = theirs.fit_transform(X_host)
    backend.assert_family(out, dtype=np.float64, shape=expected.shape)
    _compare(ours, theirs, backend, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(backend.to_numpy(out), expected, rtol=1e-6, atol=1e-8)
    again = ours.transform(backend.as_format(X.toarray(), fmt))
    backend.assert_family(again, dtype=np.float64, shape=expected.shape)
    np.testing.assert_allclose(backend.to_numpy(again), expected, atol=1e-8)
    back = ours.inverse_transform(out)
    backend.assert_family(back, dtype=np.float64, shape=shape)
    np.testing.assert_allclose(
        backend.to_numpy(back), theirs.inverse_transform(expected), atol=1e-8
    )


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
def test_float32_stays_float32(backend, rng, algorithm):
    X = _tfidf_like(rng, dtype=np.float32)
    params = dict(n_components=3, algorithm=algorithm, random_state=0)
    ours = TruncatedSVD(**params)
    theirs = skd.TruncatedSVD(**params)
    out = ours.fit_transform(backend.asarray(X))
    expected = theirs.fit_transform(X)
    backend.assert_family(out, dtype=np.float32, shape=expected.shape)
    _compare(ours, theirs, backend, rtol=1e-3, atol=1e-4)


def test_the_sparse_input_is_never_densified(rng, monkeypatch):
    """No matrix of the data's shape is densified (the Gram matrix of the
    exact method is, by design: it is small)."""
    X = _tfidf_like(rng)
    for cls in (sp.csr_matrix, sp.csc_matrix):
        for name in ("toarray", "todense"):
            original = getattr(cls, name)

            def guarded(self, *args, _original=original, **kwargs):
                assert self.shape not in (X.shape, X.shape[::-1]), "densified"
                return _original(self, *args, **kwargs)

            monkeypatch.setattr(cls, name, guarded)
    for algorithm in ("randomized", "arpack"):
        out = TruncatedSVD(3, algorithm=algorithm, random_state=0).fit_transform(X)
        assert out.shape == (X.shape[0], 3)
    with pytest.raises(AssertionError, match="densified"):  # the guard works
        X.toarray()


def test_rank_deficient_wide_sparse(backend, rng):
    """Fewer directions than components in a wide matrix: the leading ones
    match scikit-learn's, the rest are zero rows (no NaN)."""
    X = sp.csr_matrix(rng.standard_normal((6, 2)) @ rng.standard_normal((2, 40)))
    ours = TruncatedSVD(3, algorithm="arpack").fit(backend.asarray(X))
    theirs = skd.TruncatedSVD(3, algorithm="arpack", random_state=0).fit(X)
    components = backend.to_numpy(ours.components_)
    assert np.isfinite(components).all()
    np.testing.assert_allclose(components[:2], theirs.components_[:2], atol=1e-8)
    np.testing.assert_allclose(
        backend.to_numpy(ours.singular_values_)[:2],
        theirs.singular_values_[:2],
        rtol=1e-8,
    )


@pytest.mark.parametrize(
    "algorithm, n_components, message",
    [
        ("arpack", 60, r"0 < k < min\(A.shape\)"),
        ("arpack", 61, r"0 < k < min\(A.shape\)"),
        ("randomized", 61, r"n_components\(61\) must be <= n_features\(60\)"),
    ],
)
def test_too_many_components(backend, rng, algorithm, n_components, message):
    X = _tfidf_like(rng)
    with pytest.raises(ValueError, match=message):
        TruncatedSVD(n_components, algorithm=algorithm).fit(backend.asarray(X))
    with pytest.raises(ValueError, match=message):
        skd.TruncatedSVD(n_components, algorithm=algorithm).fit(X)


def test_one_feature_is_scikit_learns_error(backend):
    with pytest.raises(ValueError, match="a minimum of 2 is required"):
        TruncatedSVD(1).fit(backend.asarray(np.ones((5, 1))))


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
def test_lsa_of_the_text_vectorizers_output(backend, rng, algorithm):
    """gpuml's TfidfVectorizer's CSR matrix, decomposed as scikit-learn's
    (random documents: a spectrum without repeated values)."""
    from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf

    from gpuml.feature_extraction.text import TfidfVectorizer

    words = [f"w{i}" for i in range(40)]
    weights = rng.random(40) ** 3
    docs = [
        " ".join(rng.choice(words, size=12, p=weights / weights.sum()))
        for _ in range(60)
    ]
    X = TfidfVectorizer().fit_transform(docs)
    assert sp.issparse(X)
    expected_X = SkTfidf().fit_transform(docs)
    params = dict(n_components=4, algorithm=algorithm, random_state=0)
    out = TruncatedSVD(**params).fit_transform(backend.asarray(X))
    expected = skd.TruncatedSVD(**params).fit_transform(expected_X)
    backend.assert_family(out, dtype=np.float64, shape=expected.shape)
    np.testing.assert_allclose(backend.to_numpy(out), expected, atol=1e-7)
