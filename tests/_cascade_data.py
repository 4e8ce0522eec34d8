"""Synthetic data where a LightGBM phase 2 beats a linear one (shared by the cascade tests):
relevance from the product of two expensive features, which no linear ranker orders."""
from __future__ import annotations

import numpy as np


def interaction(rng: np.random.Generator, n_queries: int, m: int = 40):
    """``(X, y, qid)`` of ``n_queries`` queries of ``m`` documents: features 1 and 2 standard
    normal, the labels 0-2 from their product, feature 0 a cheap noisy copy of the product,
    features 3 and 4 noise; drawn from ``rng``."""
    X = rng.normal(size=(n_queries * m, 5))
    inter = X[:, 1] * X[:, 2]
    y = (inter > 0.8).astype(float) + (inter > 2.0)
    X[:, 0] = inter + rng.normal(scale=2.0, size=n_queries * m)
    return X, y, np.repeat(np.arange(n_queries), m)
