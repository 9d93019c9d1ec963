"""A notebook in the course's JupyterLab, driven by headless Chromium (Playwright): open it,
run its cells, read their outputs and widgets, validate it (the server: tests/browser/server.py)."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.browser.server import SCREENSHOTS, SERVER_START_S, LabServer

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
RUN_ALL_S = float(os.environ.get("COURSE_BROWSER_RUN_S", "420"))
WIDGET_RENDER_S = 60
WIDGET_UPDATE_S = 45
VALIDATE_S = 300


@dataclass
class CellResult:
    index: int
    cell_type: str
    source: str
    execution_count: int | None
    outputs: list = field(default_factory=list)

    def errors(self) -> list[dict]:
        return [o for o in self.outputs if o.get("output_type") == "error"]

    def widget_model_ids(self) -> list[str]:
        return [o["data"][WIDGET_MIME]["model_id"] for o in self.outputs
                if WIDGET_MIME in (o.get("data") or {})]

    def label(self) -> str:
        first = next((ln.strip() for ln in self.source.splitlines() if ln.strip()), "")
        return f"cell {self.index} ({first[:60]!r})"


@dataclass
class NotebookRun:
    path: str
    cells: list[CellResult]
    seconds: float
    timed_out: str | None = None
    stopped: dict | None = None   # where Run All alone stopped (then the run went on below it)

    def code_cells(self) -> list[CellResult]:
        return [c for c in self.cells if c.cell_type == "code"]

    def describe_error(self, cell: CellResult, err: dict) -> str:
        tb = ANSI.sub("", "\n".join(err.get("traceback") or []))
        tail = "\n".join(tb.strip().splitlines()[-6:])
        return (f"{self.path} {cell.label()}: {err.get('ename')}: {err.get('evalue')}\n"
                f"    ...{tail}")


# JavaScript run in the page. `window.jupyterapp` is there because of expose_app_in_browser.
PAGE_HELPERS = r"""
() => {
  if (window.__course) return true;
  const app = window.jupyterapp;
  const course = window.__course = { panels: {}, runs: {} };
  course.open = async (path) => {
    await app.restored;
    const panel = await app.commands.execute('docmanager:open', { path, factory: 'Notebook' });
    await panel.context.ready;
    await panel.sessionContext.ready;
    app.shell.activateById(panel.id);
    course.panels[path] = panel;
    panel.node.setAttribute('data-course-path', path);
    return panel.id;
  };
  course.kernelStatus = (path) => {
    const session = course.panels[path].sessionContext.session;
    return session && session.kernel ? session.kernel.status : 'no kernel';
  };
  course.cells = (path) => course.panels[path].content.widgets.map((cell, index) => {
    cell.node.setAttribute('data-course-cell', String(index));
    const m = cell.model;
    return {
      index, cell_type: m.type, source: m.sharedModel.getSource(),
      execution_count: m.type === 'code' ? m.executionCount : null,
      execution_state: m.type === 'code' ? m.executionState : null,
      outputs: m.type === 'code' ? m.outputs.toJSON() : [],
    };
  });
  // Run All, then carry on below each cell that would have stopped it. JupyterLab sends every
  // cell's request at once; at the first error reply (a tagged test cell's too) its promise
  // settles and the cells still queued lose their [*] while the kernel goes on running them
  // (or aborts them, after an untagged error): wait for every request's reply, then for the
  // kernel to be idle, before looking for cells that did not run.
  course.startRun = (path) => {
    const panel = course.panels[path];
    const state = course.runs[path] = { done: false, error: null, passes: 0 };
    const busy = () => course.kernelStatus(path) !== 'idle' || panel.content.widgets.some(
      (c) => c.model.type === 'code' && c.model.executionState === 'running');
    const settle = async () => {
      for (let quiet = 0; quiet < 4;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        quiet = busy() ? 0 : quiet + 1;
      }
    };
    const replies = () => panel.content.widgets
      .filter((c) => c.model.type === 'code' && c.outputArea && c.outputArea.future)
      .map((c) => c.outputArea.future.done.catch(() => null));
    const command = async (id) => {
      state.passes += 1;
      try { await app.commands.execute(id); } catch (e) { /* a cell raised: seen below */ }
      await Promise.all(replies());
      await settle();
    };
    (async () => {
      try {
        app.shell.activateById(panel.id);
        await command('notebook:run-all-cells');
        let last = -1;
        for (;;) {
          const cells = panel.content.widgets;
          let next = -1;
          for (let i = last + 1; i < cells.length; i++) {
            const m = cells[i].model;
            if (m.type === 'code' && m.executionCount === null
                && m.sharedModel.getSource().trim() !== '') { next = i; break; }
          }
          if (next < 0) break;
          if (state.stopped === undefined) {   // where Run All alone stopped, and what it last showed
            const above = cells.slice(0, next).filter((c) => c.model.type === 'code').pop();
            state.stopped = { index: next, source: cells[next].model.sharedModel.getSource().slice(0, 80),
                              above: above ? JSON.stringify(above.model.outputs.toJSON()).slice(0, 600) : '' };
          }
          last = next;
          app.shell.activateById(panel.id);
          panel.content.activeCellIndex = next;
          await command(next === cells.length - 1 ? 'notebook:run-cell' : 'notebook:run-all-below');
        }
      } catch (e) {
        state.error = String((e && e.stack) || e);
      }
      state.done = true;
    })();
    return true;
  };
  course.runFinished = (path) => {
    const state = course.runs[path];
    return !!state && state.done && course.kernelStatus(path) === 'idle';
  };
  course.close = (path) => {
    const panel = course.panels[path];
    if (!panel) return true;
    delete course.panels[path];
    panel.node.removeAttribute('data-course-path');
    panel.context.model.dirty = false;   // nothing to save while it closes
    // The kernel goes down in the background; the next notebook need not wait for it.
    (async () => {
      try { await panel.sessionContext.shutdown(); } catch (e) { /* already gone */ }
      panel.context.model.dirty = false;
      panel.dispose();
    })();
    return true;
  };
  course.activate = (path) => { app.shell.activateById(course.panels[path].id); };
  return true;
}
"""

# What a widget shows (images, HTML, outputs), leaving out its controls.
WIDGET_DISPLAY_STATE = r"""
(root) => {
  const parts = [];
  root.querySelectorAll('img').forEach((img) => parts.push('img ' + img.src));
  root.querySelectorAll('.widget-html-content, .jp-OutputArea-output, canvas, svg')
      .forEach((el) => parts.push(el.tagName + ' ' + (el.innerHTML || '')));
  return parts.join('\n');
}
"""

# Mark each widget output of a notebook (data-course-widget="cell-output") from the model.
MARK_WIDGET_OUTPUTS = r"""
([path, mime]) => {
  const marks = [];
  window.__course.panels[path].content.widgets.forEach((cell, i) => {
    if (cell.model.type !== 'code') return;
    cell.model.outputs.toJSON().forEach((out, k) => {
      if (!out.data || !out.data[mime]) return;
      const child = cell.outputArea.widgets[k];
      const mark = i + '-' + k;
      if (child) child.node.setAttribute('data-course-widget', mark);
      marks.push({ mark, cell: i, attached: !!child });
    });
  });
  return marks;
}
"""

# Problems with each marked widget output (empty when all show a widget view).
WIDGET_PROBLEMS = r"""
([path, marks]) => marks.map((m) => {
  let root = document.querySelector(`[data-course-path="${path}"] [data-course-widget="${m.mark}"]`);
  const where = 'cell ' + m.cell;
  if (!root) {  // a cell far from the one Run All left active may not have been drawn when it was
    // marked (JupyterLab draws the cells near the view): mark its output now, or bring it in
    const notebook = window.__course.panels[path].content;
    const child = notebook.widgets[m.cell].outputArea.widgets[Number(m.mark.split('-')[1])];
    if (child && child.node.isConnected) {
      child.node.setAttribute('data-course-widget', m.mark);
      root = child.node;
    } else {
      notebook.scrollToItem(m.cell, 'center').catch(() => null);
      return where + ': the widget output is not in the page';
    }
  }
  const text = (root.textContent || '').trim();
  if (text.includes('Loading widget...') || text.includes('Error displaying widget'))
    return where + ': shows ' + JSON.stringify(text.slice(0, 200));
  const out = root.querySelector('.jp-OutputArea-output');
  // A widget the kernel closed (a finished tqdm bar) leaves its output hidden and empty.
  if (out && out.classList.contains('lm-mod-hidden')) return null;
  if (!out || !out.querySelector('.jupyter-widgets'))
    return where + ': no widget view, only ' + JSON.stringify(text.slice(0, 200));
  return null;
}).filter((x) => x)
"""


# Where the notebook's last cell ends, with the notebook scrolled to its top.
NOTEBOOK_BOTTOM = r"""
(path) => {
  const panel = window.__course.panels[path];
  const outer = panel.node.querySelector('.jp-WindowedPanel-outer');
  if (outer) outer.scrollTop = 0;
  const cells = panel.content.widgets;
  return cells.length ? cells[cells.length - 1].node.getBoundingClientRect().bottom : 0;
}
"""


# Scroll the notebook down by one window (less an overlap) and say where its last cell
# ends now; 0 when the last cell is already in view.
NOTEBOOK_SCROLL_ON = r"""
(path) => {
  const panel = window.__course.panels[path];
  const outer = panel.node.querySelector('.jp-WindowedPanel-outer');
  const cells = panel.content.widgets;
  if (!outer || !cells.length) return 0;
  const last = cells[cells.length - 1].node;
  if (last.getBoundingClientRect().bottom <= window.innerHeight) return 0;
  outer.scrollTop = outer.scrollTop + outer.clientHeight - 200;
  return last.getBoundingClientRect().bottom;
}
"""


def slug(path: str) -> str:
    """notebooks/01_x/01_x.ipynb -> notebooks__01_x"""
    p = Path(path)
    return f"{p.parts[0]}__{p.stem}"


class Lab:
    """One JupyterLab server and one Chromium page driving it."""

    def __init__(self, server: LabServer, page, screenshots: Path = SCREENSHOTS):
        self.server, self.page, self.screenshots = server, page, screenshots
        self.shots: list[Path] = []

    # -- page ------------------------------------------------------------------------
    def load(self) -> None:
        page = self.page
        page.goto(f"{self.server.url}/lab?token={self.server.token}",
                  wait_until="domcontentloaded", timeout=SERVER_START_S * 1000)
        page.wait_for_function("() => window.jupyterapp !== undefined",
                               timeout=SERVER_START_S * 1000)
        page.evaluate("() => window.jupyterapp.restored")
        page.wait_for_selector("#jp-main-dock-panel", timeout=60_000)
        page.evaluate(PAGE_HELPERS)

    def screenshot(self, name: str, locator=None, full_notebook: str | None = None) -> Path:
        """Save a PNG under the screenshots folder: a locator, a whole notebook, or the page."""
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{name}.png"
        if locator is not None:
            locator.scroll_into_view_if_needed(timeout=10_000)
            locator.screenshot(path=str(path), timeout=30_000)
        elif full_notebook is not None:
            more = self._screenshot_notebook(full_notebook, path)[1:]
            self.shots.extend(more)
        else:
            self.page.screenshot(path=str(path), timeout=30_000)
        self.shots.append(path)
        return path

    def _screenshot_notebook(self, nb_path: str, path: Path, cap: int = 15000) -> list[Path]:
        """The whole notebook: grow the window until the last cell fits (or to ``cap`` pixels,
        then further pictures NAME__part2.png, ... scrolled down)."""
        page, size = self.page, self.page.viewport_size
        shots = [path]
        try:
            height = size["height"]
            for _ in range(6):  # cells measure their real height once they are in view
                bottom = page.evaluate(NOTEBOOK_BOTTOM, nb_path)
                wanted = int(min(max(size["height"], bottom + 40), cap))
                if wanted <= height:
                    break
                height = wanted
                page.set_viewport_size({"width": size["width"], "height": height})
                page.wait_for_timeout(400)
            page.screenshot(path=str(path), timeout=60_000)
            for part in range(2, 6):
                bottom = page.evaluate(NOTEBOOK_SCROLL_ON, nb_path)
                if not bottom:
                    break
                page.set_viewport_size({"width": size["width"],
                                        "height": int(min(max(size["height"], bottom + 40), cap))})
                page.wait_for_timeout(600)
                shots.append(path.with_name(f"{path.stem}__part{part}.png"))
                page.screenshot(path=str(shots[-1]), timeout=60_000)
        finally:
            page.evaluate(NOTEBOOK_BOTTOM, nb_path)
            page.set_viewport_size(size)
        return shots

    # -- notebooks -------------------------------------------------------------------
    def open(self, nb_path: str) -> str:
        if self.page.locator(".jp-Dialog").count():  # left over by a failed test
            self.page.keyboard.press("Escape")
        self.page.evaluate(PAGE_HELPERS)
        panel_id = self.page.evaluate("(p) => window.__course.open(p)", nb_path)
        self.wait_kernel_idle(nb_path, 120)
        return panel_id

    def kernel_status(self, nb_path: str) -> str:
        return self.page.evaluate("(p) => window.__course.kernelStatus(p)", nb_path)

    def wait_kernel_idle(self, nb_path: str, timeout_s: float) -> None:
        try:
            self.page.wait_for_function("(p) => window.__course.kernelStatus(p) === 'idle'",
                                        arg=nb_path, timeout=timeout_s * 1000, polling=250)
        except Exception as exc:  # playwright TimeoutError
            dialog = self.dialog_text()
            raise AssertionError(
                f"{nb_path}: kernel not idle after {timeout_s:.0f}s (status "
                f"{self.kernel_status(nb_path)!r}){'; dialog: ' + dialog if dialog else ''}"
            ) from exc

    def dialog_text(self) -> str:
        dialog = self.page.locator(".jp-Dialog")
        return dialog.first.inner_text(timeout=2000) if dialog.count() else ""

    def cells(self, nb_path: str) -> list[CellResult]:
        raw = self.page.evaluate("(p) => window.__course.cells(p)", nb_path)
        return [CellResult(c["index"], c["cell_type"], c["source"], c["execution_count"],
                           c["outputs"]) for c in raw]

    def run_all(self, nb_path: str, timeout_s: float = RUN_ALL_S) -> NotebookRun:
        """Run All (and on past the cells that raise), wait until the kernel is idle."""
        start = time.monotonic()
        self.page.evaluate("(p) => window.__course.startRun(p)", nb_path)
        timed_out = None
        try:
            self.page.wait_for_function("(p) => window.__course.runFinished(p)", arg=nb_path,
                                        timeout=timeout_s * 1000, polling=500)
        except Exception:
            running = [c for c in self.page.evaluate("(p) => window.__course.cells(p)", nb_path)
                       if c.get("execution_state") == "running"]
            where = (f"cell {running[0]['index']} still running: "
                     f"{running[0]['source'].strip().splitlines()[0][:80]!r}"
                     if running else f"kernel status {self.kernel_status(nb_path)!r}")
            timed_out = f"{nb_path}: Run All did not finish within {timeout_s:.0f}s ({where})"
        state = self.page.evaluate("(p) => window.__course.runs[p]", nb_path)
        if state and state.get("error"):
            raise AssertionError(f"{nb_path}: Run All failed in the page: {state['error']}")
        return NotebookRun(nb_path, self.cells(nb_path), time.monotonic() - start, timed_out,
                           (state or {}).get("stopped"))

    def close(self, nb_path: str) -> None:
        self.page.evaluate("(p) => window.__course.close(p)", nb_path)

    def panel(self, nb_path: str):
        return self.page.locator(f'[data-course-path="{nb_path}"]')

    # -- widgets ---------------------------------------------------------------------
    def wait_widgets_rendered(self, nb_path: str, timeout_s: float = WIDGET_RENDER_S) -> list[str]:
        """Wait until every widget output shows a widget view; return what is still wrong."""
        marks = self.page.evaluate(MARK_WIDGET_OUTPUTS, [nb_path, WIDGET_MIME])
        if not marks:
            return ["no widget output in the notebook"]
        try:
            self.page.wait_for_function(f"(a) => ({WIDGET_PROBLEMS})(a).length === 0",
                                        arg=[nb_path, marks], timeout=timeout_s * 1000,
                                        polling=500)
        except Exception:
            pass
        return self.page.evaluate(WIDGET_PROBLEMS, [nb_path, marks])

    def top_level_widgets(self, nb_path: str):
        """Locators of the widget views shown in cell outputs, labkit's widgets first."""
        views = self.page.locator(f'[data-course-path="{nb_path}"] [data-course-widget] '
                                  "> .jp-OutputArea-output:not(.lm-mod-hidden) > .jupyter-widgets")
        found = [views.nth(i) for i in range(views.count())]
        return sorted(found, key=lambda v: "labkit-widget" not in (v.get_attribute("class") or ""))

    def display_state(self, root) -> str:
        return root.evaluate(WIDGET_DISPLAY_STATE)

    def _wait_display_change(self, root, before: str, timeout_s: float) -> bool:
        handle = root.element_handle()
        try:
            self.page.wait_for_function(
                f"([root, before]) => ({WIDGET_DISPLAY_STATE})(root) !== before",
                arg=[handle, before], timeout=timeout_s * 1000, polling=250)
            return True
        except Exception:
            return False

    def _control_actions(self, root):
        """(description, action) for each control in a widget, the way a learner moves it."""
        page = self.page
        for i in range(root.locator(".noUi-handle").count()):
            handle = root.locator(".noUi-handle").nth(i)

            def slide(handle=handle):
                handle.focus()
                before = handle.get_attribute("aria-valuenow")
                page.keyboard.press("ArrowRight")
                if handle.get_attribute("aria-valuenow") == before:  # at its maximum
                    page.keyboard.press("ArrowLeft")
            yield f"slider {i} (keyboard arrow)", slide
        for i in range(root.locator("select").count()):
            select = root.locator("select").nth(i)

            def choose(select=select):
                options = select.locator("option")
                current = select.input_value()
                for j in range(options.count()):
                    value = options.nth(j).get_attribute("value")
                    if value != current:
                        select.select_option(value=value)
                        return
            yield f"dropdown {i}", choose
        toggles = root.locator(".widget-toggle-buttons button:not(.mod-active)")
        if toggles.count():
            yield "toggle buttons", lambda: toggles.first.click()
        radios = root.locator("input[type=radio]:not(:checked)")
        if radios.count():
            yield "radio buttons", lambda: radios.first.check()
        checks = root.locator("input[type=checkbox]")
        if checks.count():
            yield "checkbox", lambda: checks.first.click()
        toggle = root.locator("button.widget-toggle-button")
        if toggle.count():
            yield "toggle button", lambda: toggle.first.click()
        numbers = root.locator("input[type=number]")
        if numbers.count():
            def bump():
                numbers.first.focus()
                page.keyboard.press("ArrowUp")
                page.keyboard.press("Enter")
            yield "number box (arrow up)", bump
        play = root.locator(".widget-play button")
        if play.count():
            yield "play/step button", lambda: play.first.click()

    def interact(self, root, timeout_s: float = WIDGET_UPDATE_S) -> tuple[bool, list[str]]:
        """Move the widget's controls one by one until what it displays changes."""
        tried = []
        root.scroll_into_view_if_needed(timeout=10_000)
        for name, action in self._control_actions(root):
            before = self.display_state(root)
            action()
            changed = self._wait_display_change(root, before, timeout_s)
            tried.append(f"{name}: {'display changed' if changed else 'no change'}")
            if changed:
                return True, tried
        if not tried:
            tried.append("no control found (slider, dropdown, buttons, checkbox, number box)")
        return False, tried

    # -- nbgrader --------------------------------------------------------------------
    def validate(self, nb_path: str, timeout_s: float = VALIDATE_S) -> tuple[str, str]:
        """Click the notebook toolbar's Validate button; return (result class, dialog text)."""
        button = self.panel(nb_path).locator(".validate-button")
        button.wait_for(state="visible", timeout=30_000)
        self.page.evaluate("(p) => window.__course.activate(p)", nb_path)
        button.get_by_text("Validate", exact=True).click()  # its label, as a person clicks it
        message = self.page.locator("#validation-message")
        try:
            message.wait_for(state="visible", timeout=timeout_s * 1000)
        except Exception as exc:
            raise AssertionError(f"{nb_path}: no validation result within {timeout_s:.0f}s "
                                 f"after clicking Validate; dialog: {self.dialog_text()!r}") from exc
        classes = message.get_attribute("class") or ""
        kind = next((c for c in classes.split() if c.startswith("validation-")), classes)
        return kind, self.page.locator(".jp-Dialog").first.inner_text()

    def dismiss_dialog(self) -> None:
        dialog = self.page.locator(".jp-Dialog")
        if dialog.count():
            dialog.locator(".jp-mod-accept, .jp-Dialog-button").first.click()
            dialog.first.wait_for(state="detached", timeout=10_000)

    def open_menu_item(self, menu: str, item: str) -> None:
        """Click a main-menu entry, then one of its items, by their labels."""
        self.page.locator("#jp-MainMenu .lm-MenuBar-itemLabel",
                          has_text=re.compile(rf"^\s*{re.escape(menu)}\s*$")).first.click()
        entry = self.page.locator(".lm-Menu-content .lm-Menu-item").filter(
            has=self.page.locator(".lm-Menu-itemLabel",
                                  has_text=re.compile(rf"^\s*{re.escape(item)}\s*$")))
        entry.first.click()
