"""Learner-facing comparisons: say exactly how two results differ, and assertions that teach."""

from __future__ import annotations

from typing import Any


def _to_numpy(x: Any):
    import numpy as np

    if hasattr(x, "asnumpy"):  # mxnet (its NDArray has a .detach too)
        return x.asnumpy()
    if type(x).__module__.startswith("torch"):
        x = x.detach().cpu()
        if str(x.dtype) in ("torch.bfloat16", "torch.float16"):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def _difference(actual: Any, expected: Any, rtol: float, atol: float) -> tuple[str, str]:
    import numpy as np

    a, b = _to_numpy(actual), _to_numpy(expected)
    if a.shape != b.shape:
        return "different", f"shape {a.shape} vs expected {b.shape}"
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    same_nan = np.array_equal(np.isnan(a64), np.isnan(b64))
    diff = np.abs(np.nan_to_num(a64, nan=0.0) - np.nan_to_num(b64, nan=0.0))
    max_diff = float(np.max(diff)) if diff.size else 0.0
    detail = f"max abs difference {max_diff:.3g}"
    if not same_nan:
        return "different", detail + ", NaNs in different places"
    if np.array_equal(a64, b64, equal_nan=True):
        return "exact", detail
    if np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True):
        return "close", detail
    return "different", detail


def compare(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-8,
            name: str = "result", quiet: bool = False) -> str:
    """Compare two arrays/tensors; print and return "exact", "close" or "different".

    The printed line gives the shapes on a mismatch, else the max absolute difference.
    """
    verdict, detail = _difference(actual, expected, rtol, atol)
    if not quiet:
        print(f"{name}: {verdict} ({detail})")
    return verdict


def check_close(actual: Any, expected: Any, what: str, rtol: float = 1e-5,
                atol: float = 1e-8) -> None:
    """Assert ``actual`` is close to ``expected``; the message shows both and the difference."""
    verdict, detail = _difference(actual, expected, rtol, atol)
    if verdict == "different":
        raise AssertionError(
            f"{what}: expected {_short(expected)}, got {_short(actual)} "
            f"({detail}; rtol={rtol}, atol={atol})"
        )


def check_equal(actual: Any, expected: Any, what: str) -> None:
    """Assert ``actual == expected`` (values, or arrays element-wise) with a teaching message."""
    import numpy as np

    if _is_array(actual) or _is_array(expected):
        a, b = _to_numpy(actual), _to_numpy(expected)
        ok = a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    else:
        ok = actual == expected
    if not ok:
        raise AssertionError(f"{what}: expected {_short(expected)}, got {_short(actual)}")


def _is_array(x: Any) -> bool:
    return hasattr(x, "shape") and (hasattr(x, "detach") or hasattr(x, "asnumpy")
                                    or type(x).__module__ == "numpy")


def _short(x: Any, limit: int = 200) -> str:
    if _is_array(x):
        arr = _to_numpy(x)
        text = f"array of shape {tuple(arr.shape)} {arr.dtype}: " + " ".join(
            str(arr.ravel()[:8]).split())
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."
