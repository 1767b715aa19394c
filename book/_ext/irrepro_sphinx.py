"""Local Sphinx extension of the book.

- Jupyter Book 1.x initialises the HTML builder twice, so extensions that add inline scripts on
  ``builder-inited`` / ``env-before-read-docs`` (sphinx-thebe, sphinx-togglebutton) put them in every
  page twice, and the second ``const THEBE_JS_URL`` is a JavaScript error in the reader's console.
  Identical script and style entries are dropped here, keeping the first.
"""

from __future__ import annotations


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
        context[name] = unique


def setup(app):
    # html-page-context is emitted with emit_firstresult: run before any handler that returns a
    # template name (which would stop the emission)
    app.connect("html-page-context", _dedupe_assets, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
