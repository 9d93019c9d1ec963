"""Small plotting helpers shared by several notebooks."""

from __future__ import annotations

from typing import Iterable, Sequence


def timeline(ax, rows: Sequence[str], spans: Iterable[tuple[int, float, float, str]],
             xlabel: str = "time (ms)") -> None:
    """Draw a Gantt-style timeline: ``spans`` are (row index, start, end, colour)."""
    for row, start, end, color in spans:
        ax.barh(row, max(end - start, 1e-9), left=start, height=0.6, color=color,
                edgecolor="black", linewidth=0.5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.figure.tight_layout()   # room for the row names on the left (else they are cut)


def loglog(ax, x, ys: dict, xlabel: str, ylabel: str, marker: str = "o") -> None:
    """Plot several named series against ``x`` on log-log axes with a legend."""
    for label, y in ys.items():
        ax.plot(x, y, marker=marker, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
