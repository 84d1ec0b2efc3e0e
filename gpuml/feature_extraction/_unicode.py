"""Unicode tables for the device's text analysis, built from the running
Python, so that the GPU's results are Python's (``str.lower``,
``unicodedata``, ``re``) for whatever Unicode version the interpreter has.

One buffer of 32-bit words (``gpuml/_cuda/text.cu`` reads it), in order:

- a header: the offset in words of each part below, the number of keys,
  and whether non-ASCII characters that are not keys are dropped;
- bitmaps over all 0x110000 code points: the characters Python's ``\\w``
  and ``\\s`` match (from ``re`` itself), Unicode's Cased and Case_Ignorable
  (for ``str.lower``'s final-sigma rule);
- the code points that preprocessing changes, sorted; for each, where its
  replacement starts in the pool (one more entry marks the end); the pool
  of replacement code points.

Preprocessing is scikit-learn's ``_preprocess``: ``str.lower`` if asked, then
``strip_accents``: ``"unicode"`` is NFKD without the characters of nonzero
canonical combining class, ``"ascii"`` NFKD without non-ASCII characters.
Both act on each character alone, as NFKD's canonical reordering only moves
combining characters (which both remove); ``str.lower`` does too except for
capital sigma, whose final form depends on its neighbours: the table maps it
to the ordinary small sigma and the kernel applies the rule.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np

N_CODE_POINTS = 0x110000
HEADER = 9
_SEPARATOR = "\x00"  # no character's lowercase or decomposition holds it


def _decode(code_points: np.ndarray) -> str:
    return code_points.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def _encode(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def _each_alone(pieces: np.ndarray) -> str:
    """Rows of code points as one string, each row followed by U+0000 but
    the last (so that ``str.split`` by it gives the rows back)."""
    rows = np.zeros((pieces.shape[0], pieces.shape[1] + 1), dtype=np.uint32)
    rows[:, :-1] = pieces
    return _decode(rows.ravel()[:-1])


def _piece_bounds(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The code points of ``text`` and the start and end of each piece
    between U+0000 separators."""
    points = _encode(text)
    separators = np.flatnonzero(points == 0)
    starts = np.concatenate([[0], separators + 1])
    ends = np.concatenate([separators, [points.shape[0]]])
    return points, starts, ends


_OTHERS = np.arange(1, N_CODE_POINTS, dtype=np.uint32)  # U+0000: the separator


def _bitmap(flags: np.ndarray) -> np.ndarray:
    """Boolean flags per code point as 32-bit words (bit j of word w is code
    point 32 w + j)."""
    return np.packbits(flags, bitorder="little").view("<u4")


def _pattern_flags(pattern: str) -> np.ndarray:
    flags = np.zeros(N_CODE_POINTS, dtype=bool)
    every = _decode(np.arange(N_CODE_POINTS, dtype=np.uint32))
    for match in re.finditer(pattern + "+", every):
        flags[match.start() : match.end()] = True
    return flags


@functools.cache
def word_and_space() -> tuple[np.ndarray, np.ndarray]:
    """Bitmaps of the characters ``re`` matches with ``\\w`` and ``\\s``."""
    return _bitmap(_pattern_flags(r"\w")), _bitmap(_pattern_flags(r"\s"))


@functools.cache
def cased_and_ignorable() -> tuple[np.ndarray, np.ndarray]:
    """Bitmaps of Unicode's Cased and Case_Ignorable characters, as
    ``str.lower``'s final-sigma rule reads them.

    Python exposes Cased (lowercase, uppercase or titlecase) but not
    Case_Ignorable, which is read off ``str.lower`` itself: in ``"A" + c +
    "Σ"`` the sigma is final when ``c`` is cased or case-ignorable; in
    ``"AΣ" + c`` it is final when ``c`` is case-ignorable or uncased.
    """
    every = _decode(_OTHERS)
    cased = np.zeros(N_CODE_POINTS, dtype=bool)
    for test in (str.islower, str.isupper, str.istitle):
        cased[1:] |= np.fromiter(map(test, every), dtype=bool, count=_OTHERS.shape[0])
    a, sigma = np.full_like(_OTHERS, ord("A")), np.full_like(_OTHERS, 0x3A3)
    points, _, ends = _piece_bounds(
        _each_alone(np.stack([a, _OTHERS, sigma], 1)).lower()
    )
    final_before = points[ends - 1] == 0x3C2
    points, starts, _ = _piece_bounds(
        _each_alone(np.stack([a, sigma, _OTHERS], 1)).lower()
    )
    final_after = points[starts + 1] == 0x3C2
    ignorable = np.zeros(N_CODE_POINTS, dtype=bool)
    ignorable[1:] = np.where(cased[1:], final_after, final_before)
    return _bitmap(cased), _bitmap(ignorable)


@functools.cache
def _combining_class_pattern() -> re.Pattern:
    every = _decode(_OTHERS)
    marks = [
        c
        for c, ccc in zip(every, map(unicodedata.combining, every), strict=True)
        if ccc
    ]
    return re.compile("[" + "".join(re.escape(c) for c in marks) + "]")


@functools.cache
def mapping(lowercase: bool, strip_accents: str | None):
    """The code points preprocessing changes, sorted, and their
    replacements: ``(keys, starts, pool)`` as uint32, int32 and uint32.

    With ``strip_accents="ascii"`` the keys leave out the non-ASCII
    characters that map to nothing: the kernel drops every non-ASCII
    character that is not a key.
    """
    if not lowercase and strip_accents is None:
        return np.zeros(0, np.uint32), np.zeros(1, np.int32), np.zeros(0, np.uint32)
    # Each character goes through alone, between separators that lowercasing
    # and NFKD leave in place and that stop NFKD's reordering.
    mapped = _each_alone(_OTHERS[:, None])
    if lowercase:
        mapped = mapped.lower()
    if strip_accents is not None:
        mapped = unicodedata.normalize("NFKD", mapped)
        if strip_accents == "unicode":
            mapped = _combining_class_pattern().sub("", mapped)
        else:
            mapped = mapped.encode("ascii", "ignore").decode("ascii")
    points, starts, ends = _piece_bounds(mapped)
    lengths = ends - starts
    same = (lengths == 1) & (points[np.minimum(starts, points.shape[0] - 1)] == _OTHERS)
    if strip_accents == "ascii":
        same |= (lengths == 0) & (_OTHERS >= 128)
    changed = np.flatnonzero(~same)
    lengths = lengths[changed]
    offsets = np.zeros(changed.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    take = np.repeat(starts[changed] - offsets[:-1], lengths) + np.arange(offsets[-1])
    return _OTHERS[changed], offsets.astype(np.int32), points[take].astype(np.uint32)


@functools.cache
def tables(lowercase: bool, strip_accents: str | None, final_sigma: bool) -> np.ndarray:
    """The packed buffer for ``text.cu``.

    The final-sigma bitmaps stay empty unless asked for (the text holds a
    capital sigma and is lowercased): they cost two passes of ``str.lower``
    over every code point.
    """
    word, space = word_and_space()
    if final_sigma and lowercase:
        cased, ignorable = cased_and_ignorable()
    else:
        cased = ignorable = np.zeros_like(word)
    keys, starts, pool = mapping(lowercase, strip_accents)
    parts = [word, space, cased, ignorable, keys, starts.view(np.uint32), pool]
    header = np.zeros(HEADER, dtype=np.uint32)
    offset = HEADER
    for k, part in enumerate(parts):
        header[k] = offset
        offset += part.shape[0]
    header[7] = keys.shape[0]
    header[8] = strip_accents == "ascii"
    return np.concatenate([header, *parts]).astype(np.uint32)
