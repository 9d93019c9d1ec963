"""Notebook 03's given (not graded) code: the binomial tree of the sweep and the sharded parameter server."""

from __future__ import annotations

import ast

import nbformat
import pytest

from grading.course import SOLUTIONS

from labkit import workers
from tests.harness import notebook_namespace


def _function_from_notebook(name: str):
    """One function of the solution notebook, defined on top of its set-up cell (and nothing else of its cell)."""
    ns = notebook_namespace("03_allreduce", containing=("import labkit",))
    nb = nbformat.read(SOLUTIONS / "03_allreduce" / "03_allreduce.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and f"def {name}(" in cell.source:
            tree = ast.parse(cell.source)
            node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
            exec(compile(ast.Module(body=[node], type_ignores=[]), f"03_allreduce:{name}", "exec"), ns)
            return ns[name]
    raise LookupError(f"no cell of 03_allreduce defines {name}")


@pytest.fixture(scope="module")
def tree_allreduce_():
    return _function_from_notebook("tree_allreduce_")


def _tree_vs_library(rank, world_size, tree_fn):
    import torch
    import torch.distributed as dist

    x = torch.randint(-1000, 1000, (37,), generator=torch.Generator().manual_seed(rank))
    mine, expected = x.clone(), x.clone()
    tree_fn(mine)
    dist.all_reduce(expected)
    return torch.equal(mine, expected)


@pytest.mark.parametrize("world_size", [1, 3, 5])
def test_tree_allreduce_equals_all_reduce(tree_allreduce_, world_size):
    assert all(workers.run(_tree_vs_library, world_size, tree_allreduce_, backend="gloo", timeout=60))


def test_sharded_push_pull_is_reduce_scatter_plus_all_gather():
    ns = notebook_namespace("03_allreduce", containing=("import labkit", "def sharded_push_pull"))
    import torch

    buffers = [torch.arange(10.0) * (r + 1) for r in range(3)]
    out, sent = ns["sharded_push_pull"](buffers)
    for o in out:
        assert torch.equal(o, torch.arange(10.0) * 6)
    sizes = [c.numel() for c in torch.tensor_split(torch.zeros(10), 3)]
    # push: every chunk but its own; pull, as a server: its own chunk to the 2 others
    assert sent == [(10 - sizes[w]) + 2 * sizes[w] for w in range(3)], sent
