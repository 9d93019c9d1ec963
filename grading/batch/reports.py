"""The reports stage of batch grading: CSV files, the per-test-cell item report and its
plot, and plain-text tables."""

from __future__ import annotations

import os
from pathlib import Path


def item_report(rows: list[dict], cells: dict[str, float]) -> list[dict]:
    """Per test cell: how many students got full, partial and no credit."""
    items = []
    for cell, max_score in cells.items():
        scores = [r["cells"].get(cell, 0.0) for r in rows]
        full = sum(1 for s in scores if max_score and s >= max_score)
        none = sum(1 for s in scores if s <= 0)
        items.append({"cell": cell, "points": max_score, "full": full,
                      "partial": len(scores) - full - none, "none": none,
                      "mean": round(sum(scores) / len(scores), 3) if scores else 0.0})
    return items


def export_csv(db_url: str, path: Path) -> None:
    """nbgrader export's CSV (its own plugin, every assignment), written atomically."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    tmp = path.with_name(f".{path.name}.tmp")
    with Gradebook(db_url) as gb:
        CsvExportPlugin(to=str(tmp)).export(gb)
    os.replace(tmp, path)


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)


def plot_items(items: list[dict], path: Path, title: str) -> None:
    """A stacked horizontal bar per test cell: full / partial / no credit, as a PNG."""
    import matplotlib.pyplot as plt

    fig = items_figure(items, title)
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def items_figure(items: list[dict], title: str):
    """The figure of ``plot_items``: whole students on the axis, the legend above the bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [i["cell"] for i in items][::-1]
    full = [i["full"] for i in items][::-1]
    part = [i["partial"] for i in items][::-1]
    none = [i["none"] for i in items][::-1]
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.45 * max(len(items), 1)))
    ax.barh(names, full, color="#2e7d32", label="full credit")
    ax.barh(names, part, left=full, color="#f9a825", label="partial credit")
    ax.barh(names, none, left=[f + p for f, p in zip(full, part)], color="#c62828",
            label="no credit")
    ax.set_xlabel("students")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # whole students only
    ax.set_title(title, pad=28)
    # above the bars, not over them: every bar reaches the class size
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize="small",
              frameon=False)
    fig.tight_layout()
    return fig


def table(header: list[str], rows: list[list]) -> str:
    cols = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    fmt = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in cols[1:]])


def num(x: float) -> str:
    """A score as a person writes it: 2, 0.5, 0.3333."""
    return f"{round(float(x), 4):g}"
