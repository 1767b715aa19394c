"""Local Sphinx extension of the book.

- The scorecard page (``book/scorecard``) gathers the numbers the chapters record while they
  execute, so it is read last, and read again whenever any other page is.
- Math is rendered by a local copy of MathJax (2.7, shipped by the ``jupyter-server-mathjax``
  package) copied into ``_static/mathjax``, so that equations render offline and the site loads
  nothing from a CDN.
- The example report of ``book/report`` (``irrepro report`` on twenty TREC-COVID runs, written
  into ``$IRREPRO_RESULTS/example-report`` when that page executes) is copied to
  ``example-report/`` of the site.
- Jupyter Book 1.x initialises the HTML builder twice, so extensions that add inline scripts on
  ``builder-inited`` / ``env-before-read-docs`` (sphinx-thebe, sphinx-togglebutton) put them in every
  page twice, and the second ``const THEBE_JS_URL`` is a JavaScript error in the reader's console.
  Identical script and style entries are dropped here, keeping the first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

SCORECARD = "book/scorecard"


def _read_scorecard_last(app, env, docnames):
    if SCORECARD not in env.found_docs:
        return
    if any(d != SCORECARD for d in docnames):
        if SCORECARD in docnames:
            docnames.remove(SCORECARD)
        docnames.append(SCORECARD)


def _key(asset) -> tuple:
    # the two copies differ only in filename None vs '' (inline scripts)
    filename = getattr(asset, "filename", asset) or ""
    attrs = getattr(asset, "attributes", {}) or {}
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attrs.items())))


def _dedupe_assets(app, pagename, templatename, context, doctree):
    for name in ("script_files", "css_files"):
        assets = context.get(name)
        if not assets:
            continue
        seen, unique = set(), []
        for asset in assets:
            k = _key(asset)
            if k not in seen:
                seen.add(k)
                unique.append(asset)
        # in place: the context's list is the builder's, and handlers that run later (MathJax on
        # pages with equations) append to it
        assets[:] = unique


def _mathjax_dir() -> Path | None:
    try:
        import jupyter_server_mathjax
    except ImportError:
        return None
    static = Path(jupyter_server_mathjax.__file__).parent / "static"
    return static if (static / "MathJax.js").is_file() else None


def _use_local_mathjax(app, config):
    if _mathjax_dir() is None:
        return  # keep Sphinx's default (MathJax 3 from its CDN)
    config.mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
    # myst-nb marks notebook sections tex2jax_ignore and math spans with class "math"
    config.mathjax2_config = {
        "tex2jax": {
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processRefs": False,
            "processEnvironments": False,
            "processClass": "tex2jax_process|mathjax_process|math|output_area",
            "ignoreClass": "tex2jax_ignore|mathjax_ignore|document",
        },
        "messageStyle": "none",
        # the packaged MathJax carries the STIX-Web fonts only
        "HTML-CSS": {"availableFonts": [], "preferredFont": None, "webFont": "STIX-Web", "imageFont": None},
        "SVG": {"font": "STIX-Web"},
    }
    config.mathjax3_config = None


def _copy_mathjax(app, exception):
    src = _mathjax_dir()
    if exception is None and src is not None and app.builder.format == "html":
        shutil.copytree(src, Path(app.outdir) / "_static" / "mathjax", dirs_exist_ok=True)


def _results_dir(app) -> Path:
    """Where the executed pages leave their results (the Makefile's IRREPRO_RESULTS)."""
    import os

    return Path(os.environ.get("IRREPRO_RESULTS") or Path(app.srcdir) / "_build" / "results")


def _copy_example_report(app, exception):
    """The example report of ``book/report`` (written while that page executes) into the site."""
    src = _results_dir(app) / "example-report"
    if exception is None and app.builder.format == "html" and (src / "index.html").is_file():
        shutil.copytree(src, Path(app.outdir) / "example-report", dirs_exist_ok=True)


def setup(app):
    app.connect("config-inited", _use_local_mathjax, priority=900)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _copy_example_report)
    # after the other env-before-read-docs handlers, so that nothing reorders it again
    app.connect("env-before-read-docs", _read_scorecard_last, priority=900)
    # html-page-context is emitted with emit_firstresult: run before any handler that returns a
    # template name (which would stop the emission)
    app.connect("html-page-context", _dedupe_assets, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
