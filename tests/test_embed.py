"""The sentence embedder (kg/sentence_encoder.py) gives sentence-transformers' vectors of the bundled model."""

from __future__ import annotations

import numpy as np
import pytest

from kgqa.kg.embed import embed, model_path

TEXTS = ["Who directed The Matrix?", "  leading and trailing spaces  ", "", "Gustaf's Knäckebröd", "東京タワー",
         "word " * 400, "The Ancient Scholar of Porto (book)", "MIT", "tab\tand\nnewline",
         "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911."]


def test_vectors_are_sentence_transformers_vectors():
    st = pytest.importorskip("sentence_transformers")
    reference = st.SentenceTransformer(model_path(), device="cpu").encode(
        TEXTS, batch_size=128, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    got = embed(TEXTS)
    assert got.dtype == np.float32 and got.shape == reference.shape
    assert np.abs(got - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert np.abs(embed(TEXTS[0])[0] - got[0]).max() < 1e-5  # alone or in a batch
