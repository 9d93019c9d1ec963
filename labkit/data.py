"""scikit-learn's bundled 8x8 digits as tensors: real data, no downloads."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def _digits_numpy():
    """Images (N, 8, 8) in [0, 1] and labels, read from the file scikit-learn ships
    (``load_digits`` reads the same file; reading it here skips importing scikit-learn,
    over a second of every kernel's start-up)."""
    import importlib.util

    import numpy as np

    spec = importlib.util.find_spec("sklearn")
    path = Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz" if spec else None
    if path is not None and path.is_file():
        table = np.loadtxt(path, delimiter=",", dtype=np.float64)
        images, target = table[:, :-1].reshape(-1, 8, 8), table[:, -1]
    else:  # another scikit-learn layout
        from sklearn.datasets import load_digits

        bunch = load_digits()
        images, target = bunch.images, bunch.target
    X = (images / 16.0).astype(np.float32)  # pixel values 0..16 scaled to [0, 1]
    y = target.astype(np.int64)
    return X, y


def digits(
    framework: str = "torch", flatten: bool = False, test_fraction: float = 0.2, seed: int = 0
):
    """(X_train, y_train, X_test, y_test) from the 1797 8x8 digits images.

    X has shape (N, 1, 8, 8) with values in [0, 1], or (N, 64) with ``flatten=True``;
    y holds int64 labels 0-9. ``framework`` is "torch", "mxnet" or "numpy". The split is
    a fixed random permutation (``seed``), so every run sees the same data.
    """
    import numpy as np

    if framework not in ("torch", "mxnet", "numpy"):
        raise ValueError(f"framework must be 'torch', 'mxnet' or 'numpy', got {framework!r}")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be between 0 and 1, got {test_fraction!r}")
    X, y = _digits_numpy()
    X = X.reshape(len(X), 64) if flatten else X.reshape(len(X), 1, 8, 8)
    order = np.random.default_rng(seed).permutation(len(X))
    n_test = int(round(len(X) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    parts = (X[train], y[train], X[test], y[test])
    if framework == "numpy":
        return parts
    if framework == "torch":
        import torch

        return tuple(torch.from_numpy(np.ascontiguousarray(p)) for p in parts)
    from .devices import require_mxnet

    mx = require_mxnet()
    return tuple(mx.nd.array(p, dtype=p.dtype) for p in parts)


def batches(X, y, batch_size: int, shuffle: bool = False, seed: int = 0):
    """Yield (X_batch, y_batch) minibatches of ``batch_size`` (the last one may be smaller)."""
    import numpy as np

    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    n = len(X)
    if len(y) != n:
        raise ValueError(f"X has {n} samples but y has {len(y)}; they must match")
    order = np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)
    for start in range(0, n, batch_size):
        idx = order[start:start + batch_size]
        if type(X).__module__.startswith("mxnet"):
            import mxnet as mx

            sel = mx.nd.array(idx, ctx=X.context, dtype="int64")
            yield X.take(sel), y.take(sel)
        else:
            yield X[idx], y[idx]
