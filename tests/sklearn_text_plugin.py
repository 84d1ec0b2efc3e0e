"""pytest plugin: scikit-learn's text tests, run against gpuml's transformers.

``python -m pytest -p tests.sklearn_text_plugin <sklearn>/feature_extraction/
tests/test_text.py`` runs scikit-learn's ``test_text.py`` with
``CountVectorizer``, ``HashingVectorizer``, ``TfidfTransformer`` and
``TfidfVectorizer`` replaced by gpuml's in ``sklearn.feature_extraction.text``
itself, before the test module imports it: its own tests of the classes
(and gpuml's ``TfidfVectorizer`` builds its transformer from that module's
name, so it computes through gpuml's ``TfidfTransformer``).
``tests/feature_extraction/test_sklearn_text_suite.py`` runs it.
"""

import sklearn.feature_extraction.text

import gpuml.feature_extraction.text

SWAPPED = (
    "CountVectorizer",
    "HashingVectorizer",
    "TfidfTransformer",
    "TfidfVectorizer",
)

for _name in SWAPPED:
    setattr(
        sklearn.feature_extraction.text,
        _name,
        getattr(gpuml.feature_extraction.text, _name),
    )
