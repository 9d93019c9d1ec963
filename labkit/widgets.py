"""Widgets built from ipywidgets + matplotlib that stay readable without a widget frontend.

Each widget here carries a static copy of what it currently shows (a PNG or HTML), so a
notebook viewed where widgets cannot run (nbconvert, a static viewer, an autograded copy)
still shows a picture.
"""

from __future__ import annotations

import base64
import io
from typing import Callable

import ipywidgets as widgets


def figure_png(fig, dpi: int = 100) -> bytes:
    """Render a matplotlib Figure (no pyplot state needed) to PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


class _ControlledView(widgets.VBox):
    """Controls above a view that ``refresh`` redraws whenever a control changes.

    Its display bundle also holds a static copy of the view (``_static_bundle``).
    """

    def __init__(self, view: widgets.Widget, controls: dict):
        self.controls = dict(controls)
        bar = widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([bar, view])
        self.add_class("labkit-widget")
        for control in self.controls.values():
            control.observe(self.refresh, names="value")
        self.refresh()

    @property
    def values(self) -> dict:
        """The current value of every control, by name."""
        return {name: c.value for name, c in self.controls.items()}

    def refresh(self, *_) -> None:
        """Redraw the view from the current control values."""
        raise NotImplementedError

    def _static_bundle(self) -> dict:
        return {}

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle.update(self._static_bundle())
        return bundle


class FigureWidget(_ControlledView):
    """Controls above a matplotlib figure that is redrawn whenever a control changes."""

    def __init__(self, draw: Callable, controls: dict, figsize=(7.0, 3.5), dpi: int = 100):
        from matplotlib.figure import Figure

        self._draw, self._figsize, self._dpi, self._Figure = draw, figsize, dpi, Figure
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.image.add_class("labkit-figure")
        super().__init__(self.image, controls)

    def refresh(self, *_) -> None:
        """Redraw the figure from the current control values."""
        fig = self._Figure(figsize=self._figsize)
        self._draw(fig, **self.values)
        self.image.value = figure_png(fig, dpi=self._dpi)

    def _static_bundle(self) -> dict:
        return {"image/png": base64.b64encode(self.image.value).decode("ascii")}


class HTMLWidget(_ControlledView):
    """Controls above an HTML view produced by ``render(**values) -> str``."""

    def __init__(self, render: Callable[..., str], controls: dict):
        self._render = render
        self.html = widgets.HTML()
        self.html.add_class("labkit-html")
        super().__init__(self.html, controls)

    def refresh(self, *_) -> None:
        """Re-render the HTML from the current control values."""
        self.html.value = self._render(**self.values)

    def _static_bundle(self) -> dict:
        return {"text/html": self.html.value}


def interactive_figure(draw: Callable, figsize=(7.0, 3.5), **controls) -> FigureWidget:
    """A figure redrawn by ``draw(fig, **values)`` whenever one of ``controls`` changes.

    >>> interactive_figure(draw, n=widgets.IntSlider(4, 1, 16, description="ops"))
    """
    _check_controls(controls)
    return FigureWidget(draw, controls, figsize=figsize)


def interactive_html(render: Callable[..., str], **controls) -> HTMLWidget:
    """An HTML view re-rendered by ``render(**values)`` whenever one of ``controls`` changes."""
    _check_controls(controls)
    return HTMLWidget(render, controls)


def _check_controls(controls: dict) -> None:
    if not controls:
        raise ValueError("give at least one control, e.g. n=ipywidgets.IntSlider(...)")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(
                f"control {name!r} must be an ipywidgets value widget (IntSlider, Dropdown, ...), "
                f"got {type(control).__name__}"
            )
