"""The device's Unicode tables equal the running Python's rules.

The tables are built from ``str.lower``, ``unicodedata`` and ``re`` a
whole alphabet at a time; these tests check them one character at a time
the way scikit-learn's preprocessing and token pattern see it, on every
Latin, Greek and Cyrillic code point and a random sample of the rest.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pytest

from gpuml.feature_extraction import _unicode


def sample_code_points(rng):
    low = np.arange(1, 0x800)
    rest = rng.integers(0x800, _unicode.N_CODE_POINTS, size=20_000)
    points = np.unique(np.concatenate([low, rest, [0x130, 0x3A3, 0xFB01, 0xAC00]]))
    return [int(c) for c in points if not 0xD800 <= c < 0xE000]


def bits(bitmap):
    return np.unpackbits(bitmap.view(np.uint8), bitorder="little").astype(bool)


def preprocess(c: str, lowercase: bool, strip_accents) -> str:
    """scikit-learn's _preprocess of one character."""
    if lowercase:
        c = c.lower()
    if strip_accents == "unicode":
        c = "".join(
            x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x)
        )
    elif strip_accents == "ascii":
        c = unicodedata.normalize("NFKD", c).encode("ascii", "ignore").decode("ascii")
    return c


@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("strip_accents", [None, "ascii", "unicode"])
def test_mapping_is_pythons(rng, lowercase, strip_accents):
    keys, starts, pool = _unicode.mapping(lowercase, strip_accents)
    assert np.all(np.diff(keys.astype(np.int64)) > 0)
    table = {
        int(k): "".join(map(chr, pool[starts[i] : starts[i + 1]]))
        for i, k in enumerate(keys)
    }
    for cp in sample_code_points(rng):
        c = chr(cp)
        default = "" if strip_accents == "ascii" and cp >= 128 else c
        assert table.get(cp, default) == preprocess(c, lowercase, strip_accents), hex(
            cp
        )


def test_word_and_space_are_res(rng):
    word, space = (bits(b) for b in _unicode.word_and_space())
    for cp in sample_code_points(rng):
        c = chr(cp)
        assert word[cp] == bool(re.match(r"\w", c)) == (c.isalnum() or c == "_")
        assert space[cp] == bool(re.match(r"\s", c)) == c.isspace()


def test_final_sigma_properties(rng):
    """A capital sigma after cased letter X and case-ignorable Y is final
    exactly when the tables say X is cased and Y case-ignorable."""
    cased, ignorable = (bits(b) for b in _unicode.cased_and_ignorable())
    assert cased[ord("A")] and not cased[ord("1")] and cased[0x2B0]
    assert ignorable[ord("'")] and ignorable[0x301] and ignorable[0xAD]
    assert not ignorable[ord("A")] and not ignorable[ord(" ")]
    for cp in sample_code_points(rng)[::7]:
        c = chr(cp)
        final = ("A" + c + "\u03a3").lower()[-1] == "\u03c2"
        assert final == (ignorable[cp] or cased[cp]), hex(cp)


def test_tables_layout():
    buffer = _unicode.tables(True, "ascii", False)
    header = buffer[: _unicode.HEADER]
    keys, starts, pool = _unicode.mapping(True, "ascii")
    assert header[7] == keys.shape[0] and header[8] == 1
    np.testing.assert_array_equal(buffer[header[4] : header[5]], keys)
    np.testing.assert_array_equal(buffer[header[5] : header[6]].view(np.int32), starts)
    np.testing.assert_array_equal(buffer[header[6] :], pool)
    assert not buffer[header[2] : header[4]].any()  # no final-sigma bitmaps
