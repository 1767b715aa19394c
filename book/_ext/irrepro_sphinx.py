"""Local Sphinx extension of the book.

- The scorecard page (``book/scorecard``), the introduction and the replications page gather what
  the chapters record while they execute (every compared row; each chapter's headline), so they
  are read last, and read again whenever any other page is.
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
- The student edition (``make student``, ``hide_solutions``) drops gated solutions
  (``solution-start`` ... ``solution-end``, whose code cells the book executes) entirely; it is
  built with ``irrepro_edition: student``, the tag ``student`` of ``{only}`` blocks.
- Publishing (see the README's *Publishing*): the repository URL of ``_config.yml`` is replaced by
  ``IRREPRO_REPOSITORY_URL`` when set (the GitHub workflow sets it to the repository it runs in);
  every notebook page (the chapters, ``book/data``, ...) gets a paired ``.ipynb`` beside its ``.md``
  (no outputs, a first set-up cell that installs irrepro where it is missing), which the theme's
  Binder and Colab buttons open from the launch branch the workflow publishes; the ``.ipynb``
  download (the executed notebook, with outputs) gets the same set-up cell.
- The student edition serves no solution anywhere (``irrepro_solutions.strip_solutions``): its
  download links (``_sources``: the page's ``.md``, the executed ``.ipynb``) are rewritten without
  them at the end of its build, and its launch buttons open ``student/<page>.ipynb``
  (``path_to_docs``), the paired notebook without them, which its build writes beside the book's
  for the launch branch. Its check cells (``book.check("ex-sakai-2", answer)``) become the
  student's, in those sources and on its pages: a placeholder answer and the check with the key of
  the answer the book's executed solution recorded (``irrepro.book.answer``, under
  ``IRREPRO_RESULTS``); an exercise without a recorded answer fails its build.
- The coursework page's tables of exercises (``.. irrepro-exercises::``) come from
  ``book/exercises.yml``: each exercise's level, minutes and kind of answer.
- The notebooks a build must execute run **concurrently** before Sphinx reads them
  (:func:`_pre_execute`, issue 30): each is read exactly as myst-nb reads it, executed in its own
  kernel (``IRREPRO_BOOK_JOBS`` at a time, default the machine's cores) and stored in myst-nb's
  execution cache, so that Sphinx then reads every page from the cache; the cache stays keyed by
  content, so a warm rebuild executes nothing. A notebook that fails is not stored, and Sphinx
  executes it again as usual, failing the build with its error. The pages of ``LAST`` are executed
  by Sphinx afterwards, as before. When ``IRREPRO_PRE_EXECUTED`` names a file (``make book``,
  ``book/_ext/editions.py``), every missing notebook is executed here, one too, and the file then
  says ``ok`` (or ``failed``): the student edition's build starts beside this one and finds every
  notebook in the cache.
- The API reference (``book/api/*.md``): the ``irrepro-api`` directive documents a public module
  by its ``__all__`` - the module's docstring, an autosummary table, then each name under the public
  module's path (``irrepro.significance.compare``, never a private submodule), so that names
  served lazily (PEP 562) render and a name that moves between private submodules keeps its page.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

SCORECARD = "book/scorecard"
#: The pages read after the chapters: they show what the chapters record as they run (the
#: headlines, irrepro.book.headline_table; every compared row, the scorecard).
LAST = ("book/intro", "book/replications", SCORECARD, "book/rule")
REPOSITORY_ENV = "IRREPRO_REPOSITORY_URL"
SETUP_CELL_ID = "irrepro-setup"
#: The student edition's paired notebooks, without the solutions: ``student/<page>.ipynb`` of the
#: source tree (pushed to the launch branch with the book's), which its launch buttons open.
STUDENT_DIR = "student"


def _read_scorecard_last(app, env, docnames):
    """Read (and so execute) the pages that gather what the chapters record after the chapters."""
    last = [d for d in LAST if d in env.found_docs]
    if not any(d not in last for d in docnames):
        return
    for d in last:
        if d in docnames:
            docnames.remove(d)
            docnames.append(d)


#: Notebooks executed at once before Sphinx reads them (default: the machine's cores).
BOOK_JOBS_ENV = "IRREPRO_BOOK_JOBS"


def _execute_one(path: str, nb_json: str, cwd: str, timeout, allow_errors: bool):
    """Execute one notebook in a worker process (:func:`_pre_execute`): its executed JSON, its
    time, and the error's text (None when every cell ran)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    nb = nbformat.reads(nb_json, as_version=4)
    result = single_nb_execution(nb, cwd=cwd, timeout=timeout, allow_errors=allow_errors, meta_override=True)
    return (
        path,
        nbformat.writes(result.nb),
        result.time,
        result.exc_string if result.err is not None else None,
    )


def _to_execute(app, env, docnames):
    """(path, notebook as myst-nb reads it) of the pages to read that are notebooks missing from
    the execution cache, the gatherers of :data:`LAST` left out."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import create_nb_reader

    nb_config, md_config = env.mystnb_config, env.myst_config
    cache = get_cache(nb_config.execution_cache_path or ".jupyter_cache")
    todo = []
    for docname in docnames:
        if docname in LAST:
            continue
        path = str(env.doc2path(docname))
        text = Path(path).read_text(encoding="utf-8")
        reader = create_nb_reader(path, md_config, nb_config, text)
        if reader is None:
            continue  # a text page
        nb = reader.read(text)
        if "kernelspec" not in nb.metadata:
            continue
        # a page's own execution mode (``mystnb: execution_mode: force``: the rule page) is myst-nb's
        if dict(nb.metadata.get(nb_config.metadata_key) or {}).get("execution_mode", "cache") != "cache":
            continue
        name = nb.metadata["kernelspec"].get("name")
        for rgx, alias in (nb_config.kernel_rgx_aliases or {}).items():  # as myst-nb's parser does
            if name is not None and re.fullmatch(rgx, name):
                nb.metadata["kernelspec"]["name"] = alias
                break
        try:
            cache.match_cache_notebook(nb)
            continue  # executed before: read from the cache
        except KeyError:
            todo.append((path, nb, reader.read_fmt))
    return cache, todo


def _pre_execute(app, env, docnames):
    """Execute the notebooks Sphinx is about to read, several at a time, into myst-nb's cache."""
    import concurrent.futures
    import time

    import nbformat
    from jupyter_cache.base import CacheBundleIn
    from sphinx.util import logging

    flag = os.environ.get(PRE_EXECUTED_ENV)
    nb_config = getattr(env, "mystnb_config", None)
    if nb_config is None or nb_config.execution_mode != "cache":
        _say_pre_executed(flag, "ok")
        return
    cache, todo = _to_execute(app, env, docnames)
    jobs = int(os.environ.get(BOOK_JOBS_ENV, "").strip() or os.cpu_count() or 1)  # set to nothing: unset
    # nothing to gain when one runs at a time: Sphinx executes it as it reads - unless another
    # build waits for this one's notebooks to be in the cache (PRE_EXECUTED_ENV)
    if not todo or (flag is None and (len(todo) < 2 or jobs < 2)):
        _say_pre_executed(flag, "ok")
        return
    log = logging.getLogger(__name__)
    # the longest first, so that the last to finish is a short one: the pages the configuration
    # names (``irrepro_execute_first``, in its order: measured the longest), then by text length
    first = [str(Path(app.srcdir, d)) for d in app.config.irrepro_execute_first]
    todo.sort(
        key=lambda t: (
            first.index(str(Path(t[0]).with_suffix("")))
            if str(Path(t[0]).with_suffix("")) in first
            else len(first),
            -len(nbformat.writes(t[1])),
        )
    )
    # a page named in ``irrepro_execute_after`` starts only once the page it names has run (the
    # caches that page fills, such as fitted copulas, are then there to read, not fitted twice)
    stem = {path: str(Path(path).with_suffix("")) for path, _, _ in todo}
    after = {
        str(Path(app.srcdir, k)): str(Path(app.srcdir, v))
        for k, v in app.config.irrepro_execute_after.items()
    }
    log.info(f"irrepro: executing {len(todo)} notebooks, {jobs} at a time, into the execution cache")
    started = time.perf_counter()
    formats = {path: fmt for path, _, fmt in todo}
    failed = 0
    pending, running, finished = list(todo), {}, set()

    def ready(path: str) -> bool:
        need = after.get(stem[path])
        return need is None or need in finished or need not in stem.values()

    width = max(1, min(jobs, len(todo)))
    # threads: each notebook runs in a kernel process of its own; a thread only waits on it
    with concurrent.futures.ThreadPoolExecutor(max_workers=width) as pool:
        while pending or running:
            while pending and len(running) < width:
                k = next((i for i, t in enumerate(pending) if ready(t[0])), None if running else 0)
                if k is None:
                    break
                path, nb, _ = pending.pop(k)
                running[
                    pool.submit(
                        _execute_one,
                        path,
                        nbformat.writes(nb),
                        str(Path(path).parent),
                        nb_config.execution_timeout,
                        nb_config.execution_allow_errors,
                    )
                ] = path
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                finished.add(stem[running.pop(future)])
                path, nb_json, seconds, error = future.result()
                rel = os.path.relpath(path, app.srcdir)
                if error is not None:  # Sphinx executes it again and fails the build with its error
                    last = re.sub(r"\x1b\[[0-9;]*m", "", error).strip().splitlines()[-1:] or [""]
                    log.info(f"irrepro: {rel} failed ({seconds:.1f} s): {last[0]}; executed again by Sphinx")
                    waiting = [
                        os.path.relpath(p, app.srcdir)
                        for p, _, _ in pending
                        if after.get(stem[p]) == stem[path]
                    ]
                    if waiting:  # they start all the same, and fill for themselves what it would have
                        log.info(
                            f"irrepro: {', '.join(waiting)} start(s) without what {rel} would have cached"
                        )
                    failed += 1
                    continue
                fmt = formats[path]
                record = (
                    cache.add_nb_to_project(path, read_data=fmt)
                    if fmt is not None
                    else cache.add_nb_to_project(path)
                )
                cache.cache_notebook_bundle(
                    CacheBundleIn(
                        nbformat.reads(nb_json, as_version=4), record.uri, data={"execution_seconds": seconds}
                    ),
                    check_validity=False,
                    overwrite=True,
                )
                log.info(f"irrepro: executed {rel} in {seconds:.1f} s")
    log.info(f"irrepro: {len(todo)} notebooks executed in {time.perf_counter() - started:.1f} s")
    _say_pre_executed(flag, "failed" if failed else "ok")


#: Set by ``book/_ext/editions.py`` (``make book``) to a file that :func:`_pre_execute` writes when
#: every notebook of the build is in the execution cache (``ok``) or one failed (``failed``): the
#: student edition's build then starts beside this one and executes nothing.
PRE_EXECUTED_ENV = "IRREPRO_PRE_EXECUTED"


def _say_pre_executed(flag: str | None, status: str) -> None:
    """Write ``status`` into the file ``flag`` names (:data:`PRE_EXECUTED_ENV`), whole or not at all."""
    if flag:
        tmp = Path(f"{flag}.tmp")
        tmp.write_text(status + "\n", encoding="utf-8")
        os.replace(tmp, flag)


def _edition_tag(app, config):
    """The student edition (``irrepro_edition: student``, set by ``make book``'s second build) is
    the tag ``student`` of ``{only}`` blocks (the coursework page links the other edition)."""
    if config.irrepro_edition == "student":
        app.tags.add("student")


def _reread_gatherers(app, env, added, changed, removed):
    """The pages of :data:`LAST` are outdated whenever any other page is, a chapter's sub-pages
    (``<chapter>/<page>``, which paste what it computes) whenever it is."""
    touched = set(added) | set(changed) | set(removed)
    subpages = [d for d in env.found_docs if any(d.startswith(f"{c}/") for c in touched)]
    if touched - set(LAST):
        return [d for d in LAST if d in env.found_docs] + subpages
    return subpages


#: the glue keys of what a chapter shows on a sub-page (irrepro.book.compare(..., page=), book.aside)
_SUBPAGE_KEYS = ("cmp-", "aside-")
_PASTE = re.compile(r"^```\{glue(?::\w+)?\}\s+(\S+)\s*$", re.M)


def _check_pasted(app, env):
    """Every table a chapter glued for a sub-page is pasted on one: nothing it computed is left out."""
    import json

    from sphinx.util import logging

    out = Path(env.mystnb_config.output_folder)
    pasted: set[str] = set()
    for doc in env.found_docs:
        src = Path(env.doc2path(doc))
        if src.suffix == ".md":
            pasted.update(_PASTE.findall(src.read_text(encoding="utf-8")))
    for doc in sorted(env.found_docs):
        glued = out.joinpath(*doc.split("/")[:-1], doc.split("/")[-1] + ".glue.json")
        if not glued.is_file():
            continue
        for key in json.loads(glued.read_text(encoding="utf-8")):
            if key.startswith(_SUBPAGE_KEYS) and key not in pasted:
                logging.getLogger(__name__).warning(
                    f"{doc}: {key!r} is shown on a sub-page (page=, book.aside) that no page pastes: "
                    f"add it to a page of the chapter ({{glue:any}} {key} with :doc:)",
                    location=doc,
                )


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
        # the hidden MathML for screen readers (AssistiveMML) would otherwise ask for MathJax's TeX
        # web fonts for variants such as \mathbb, which the package does not carry (a 404)
        "styles": {".MJX_Assistive_MathML [mathvariant]": {"font-family": "inherit"}},
        # the packaged MathJax carries the STIX-Web fonts only
        "HTML-CSS": {"availableFonts": [], "preferredFont": None, "webFont": "STIX-Web", "imageFont": None},
        "SVG": {"font": "STIX-Web"},
    }
    config.mathjax3_config = None


def _copy_mathjax(app, exception):
    src = _mathjax_dir()
    if exception is None and src is not None and app.builder.format == "html":
        shutil.copytree(src, Path(app.outdir) / "_static" / "mathjax", dirs_exist_ok=True)


def _repository(app, config):
    url = os.environ.get(REPOSITORY_ENV, "").strip().rstrip("/")
    if url:
        config.html_theme_options["repository_url"] = url


def _setup_cell(config):
    """The first cell of a published notebook: install what a bare Jupyter (Colab) lacks."""
    import myst_nb
    import nbformat

    opts = config.html_theme_options
    url, ref = opts["repository_url"], opts.get("repository_branch") or "main"
    # the papers' numbers and references the chapters read (irrepro._rule.book_dir finds a book/
    # in the working directory): fetched from the same branch where the notebook runs alone
    book = Path(__file__).resolve().parents[1]
    files = ["references.bib"] + [f"papers/{p.name}" for p in sorted((book / "papers").glob("*.yml"))]
    raw = url.replace("https://github.com/", "https://raw.githubusercontent.com/")
    source = (
        "# Set-up for Colab or any Jupyter without irrepro: install it from the book's repository,\n"
        "# from the launch branch that also holds this notebook, and myst-nb (the book's `glue`);\n"
        "# fetch the book's files the chapters read (the papers' numbers, the references).\n"
        "# Binder and a local checkout (`make venv`) have all of it, and then nothing is installed.\n"
        "import importlib.util\n"
        "import pathlib\n"
        "import urllib.request\n"
        "\n"
        'if importlib.util.find_spec("irrepro") is None:\n'
        f'    %pip install --quiet "irrepro @ git+{url}@{ref}"\n'
        'if importlib.util.find_spec("myst_nb") is None:\n'
        f'    %pip install --quiet "myst-nb=={myst_nb.__version__}"\n'
        "here = pathlib.Path.cwd()\n"
        'if not any((d / "book" / "papers").is_dir() for d in (here, *here.parents)):\n'
        f"    for name in {files!r}:\n"
        '        (here / "book" / name).parent.mkdir(parents=True, exist_ok=True)\n'
        f'        urllib.request.urlretrieve(f"{raw}/{ref}/book/{{name}}", here / "book" / name)'
    )
    cell = nbformat.v4.new_code_cell(source)
    cell.id = SETUP_CELL_ID
    return cell


def _pair_notebooks(app, config):
    """Write ``<page>.ipynb`` beside the ``.md`` of every notebook page of the toc.

    The theme's launch buttons open ``<page>.ipynb`` when that file exists beside the page's
    source, else the ``.md``, which Colab cannot open. The ``.ipynb`` are kept out of Sphinx's
    sources (one document, one source) and rewritten only when their text changes.
    """
    import jupytext
    import nbformat
    from irrepro_solutions import strip_solutions

    config.exclude_patterns.append(f"{STUDENT_DIR}/**")
    site_map = getattr(config, "external_site_map", None)  # sphinx-external-toc, priority 900
    if not site_map or not config.html_theme_options.get("repository_url"):
        return  # no toc, or no repository to launch from
    student = bool(config.hide_solutions)
    if student:  # the launch buttons open <path_to_docs>/<page>.ipynb
        config.html_theme_options["path_to_docs"] = STUDENT_DIR
    setup = _setup_cell(config)
    for docname in sorted(site_map):
        md = Path(app.srcdir) / f"{docname}.md"
        if not md.is_file():
            continue
        nb = jupytext.read(md)
        if "kernelspec" not in nb.metadata:
            continue  # a text page, not a notebook: the theme gives it no launch buttons
        config.exclude_patterns.append(f"{docname}.ipynb")
        for i, cell in enumerate(nb.cells):  # stable ids: the file changes only with its source
            cell.id = f"c{i:03d}-" + hashlib.sha1(cell.source.encode()).hexdigest()[:8]
        nb.cells.insert(0, setup)
        # a plain notebook: no jupytext pairing metadata, which would make jupytext (in Binder)
        # re-read the cells from the .md, dropping the set-up cell
        nb.metadata.pop("jupytext", None)
        nbformat.validate(nb)
        _write_if_changed(md.with_suffix(".ipynb"), jupytext.writes(nb, "ipynb"))
        if student:
            path = Path(app.srcdir) / STUDENT_DIR / f"{docname}.ipynb"
            _write_if_changed(path, jupytext.writes(strip_solutions(nb, _answer_keys(app)), "ipynb"))


def _answer_keys(app) -> dict[str, str]:
    """The keys of the exercises' answers the executed pages recorded (``irrepro.book.answer``),
    read again only when an answer was recorded since (the answers directory changed)."""
    from irrepro.book._exercises import _answers_dir, recorded_keys

    d = _answers_dir(_results_dir(app))
    stamp = d.stat().st_mtime_ns if d is not None and d.is_dir() else None
    cached = getattr(app, "_irrepro_answer_keys", None)
    if cached is None or cached[0] != stamp:
        app._irrepro_answer_keys = cached = (stamp, recorded_keys(_results_dir(app)))
    return cached[1]


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless the file already holds it (its time stamp kept)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _student_sources(app, exception):
    """The student edition's download links serve its pages' sources without the solutions: the
    ``.md`` Sphinx copies to ``_sources`` and the executed ``.ipynb`` the theme copies there."""
    if exception is not None or app.builder.format != "html" or not app.config.hide_solutions:
        return
    import nbformat
    from irrepro_solutions import strip_solutions

    keys = _answer_keys(app)
    for path in sorted((Path(app.outdir) / "_sources").rglob("*")):
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            _write_if_changed(path, strip_solutions(text, keys))
        elif path.suffix == ".ipynb":
            nb = nbformat.read(path, as_version=4)
            stripped = strip_solutions(nb, keys)
            if stripped != nb:
                nbformat.write(stripped, path)


def _show_pasted(nb):
    """The tables a chapter glued for its sub-pages shown in its ``.ipynb`` download too (a glued
    output is a record Jupyter does not render): each gets its HTML and text as display data."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name", "")
            if name.startswith(_SUBPAGE_KEYS):
                for mime in ("text/html", "text/plain"):
                    rec = out.get("data", {}).get(f"application/papermill.record/{mime}")
                    if rec is not None:
                        out["data"][mime] = rec
    return nb


def _setup_cell_in_download(app, pagename, templatename, context, doctree):
    """Give the ``.ipynb`` download (the executed notebook the theme copies) the set-up cell, and
    the tables its chapter shows on sub-pages."""
    if not context.get("ipynb_source"):
        return
    import nbformat

    path = Path(app.outdir) / "_sources" / context["ipynb_source"]
    nb = nbformat.read(path, as_version=4)
    if nb.cells and nb.cells[0].get("id") == SETUP_CELL_ID:
        return
    nb = _show_pasted(_with_cached_outputs(app, nb))
    nb.cells.insert(0, _setup_cell(app.config))
    nbformat.write(nb, path)


def _with_cached_outputs(app, nb):
    """myst-nb (1.4) writes a page whose outputs came from the execution cache to
    ``jupyter_execute`` *without* them (it merges them into a copy): take them from the cache."""
    if any(c.get("outputs") for c in nb.cells if c.get("cell_type") == "code"):
        return nb
    cache_path = getattr(app.env, "mystnb_config", None)
    cache_path = getattr(cache_path, "execution_cache_path", "") or ""
    if not cache_path or not Path(cache_path).is_dir():
        return nb
    from jupyter_cache import get_cache

    try:
        return get_cache(cache_path).merge_match_into_notebook(nb)[1]
    except KeyError:  # not in the cache (a page that did not execute)
        return nb


def _results_dir(app) -> Path:
    """Where the executed pages leave their results (the Makefile's IRREPRO_RESULTS)."""
    import os

    results = os.environ.get("IRREPRO_RESULTS", "")  # set to nothing (or spaces): unset, as irrepro reads it
    return Path(results if results.strip() else Path(app.srcdir) / "_build" / "results")


def _copy_example_report(app, exception):
    """The example report of ``book/report`` (written while that page executes) into the site."""
    src = _results_dir(app) / "example-report"
    if exception is None and app.builder.format == "html" and (src / "index.html").is_file():
        shutil.copytree(src, Path(app.outdir) / "example-report", dirs_exist_ok=True)


def _gated_solution_start():
    """``solution-start`` that, in the student edition (``hide_solutions``), leaves a marker where
    sphinx-exercise (1.2) leaves nothing: it then drops the solution's title and merges nothing,
    so the solution's text and code cells would stay on the page, followed by an end node no
    writer knows. :func:`_drop_hidden_solutions` removes everything from the marker to the end."""
    from sphinx_exercise.directive import SolutionStartDirective

    class GatedSolutionStart(SolutionStartDirective):
        def run(self):
            out = super().run()
            return [_HiddenSolution()] if self.env.app.config.hide_solutions else out

    return GatedSolutionStart


class _HiddenSolution:  # replaced by a docutils Element subclass in setup (docutils imported lazily)
    pass


def _drop_hidden_solutions(app, doctree):
    if not app.config.hide_solutions:
        return
    from sphinx_exercise.nodes import solution_end_node

    for start in list(doctree.findall(_HiddenSolution)):
        parent = start.parent
        i = parent.index(start)
        j = next(
            (k for k in range(i, len(parent.children)) if isinstance(parent.children[k], solution_end_node)),
            None,
        )
        if j is None:
            raise ValueError(f"{app.env.docname}: solution-start without solution-end")
        del parent.children[i : j + 1]
    _student_check_cells(app, doctree)


def _student_check_cells(app, doctree):
    """The check cells of a student page in the student's form (a placeholder answer, the check with
    its key; ``irrepro_solutions.student_checks``), without the instructor edition's output."""
    from docutils import nodes
    from irrepro_solutions import CHECK, student_checks

    keys = None
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if not CHECK.search(text):
            continue
        keys = _answer_keys(app) if keys is None else keys
        new = student_checks(text, keys)
        block.replace(block.children[0], nodes.Text(new))
        block["rawsource"] = new
        cell = block.parent.parent if block.parent is not None else None
        if cell is not None and "cell" in cell.get("classes", []):
            for child in list(cell.children):
                if "cell_output" in child.get("classes", []):
                    cell.remove(child)


def _override_solution_start(app):
    app.add_directive("solution-start", _gated_solution_start(), override=True)


def _doc_comment(modname: str, name: str, obj) -> list[str] | None:
    """The ``#:`` comment documenting the constant ``name`` of ``modname``, looked up in the
    module and, for a name it imports from its submodules (``irrepro.topic_split._swap`` for
    ``irrepro.topic_split``) or from a private sibling module (``irrepro._text``), in the module that
    holds it."""
    import sys

    from sphinx.pycode import ModuleAnalyzer

    sibling = modname.rpartition(".")[0] + "._"
    homes = [modname] + sorted(
        m
        for m, mod in list(sys.modules.items())
        if (m.startswith(modname + ".") or m.startswith(sibling)) and getattr(mod, name, None) is obj
    )
    for home in homes:
        try:
            docs = ModuleAnalyzer.for_module(home).find_attr_docs()
        except Exception:  # a module without source: no comment to find
            continue
        if ("", name) in docs:
            return list(docs[("", name)])
    return None


_ATTRIBUTE_TEXT: dict[str, list[str]] = {}


def _api_docstring(app, what, name, obj, options, lines):
    """Before napoleon: a constant's docstring is its ``#:`` comment (wherever the package defines
    it), never the docstring of its type (``dict() -> new empty dictionary ...``). The text of a
    constant, attribute or property is kept as written (:func:`_api_attribute_text`)."""
    if what == "data":
        modname, _, attr = name.rpartition(".")
        comment = _doc_comment(modname, attr, obj)
        if comment is not None:
            lines[:] = comment
        elif lines and "\n".join(lines).strip() == (type(obj).__doc__ or "").strip():
            lines[:] = []
    if what in ("data", "attribute", "property"):
        _ATTRIBUTE_TEXT[name] = list(lines)


def _api_attribute_text(app, what, name, obj, options, lines):
    """After napoleon: the text of a constant, attribute or property as written - napoleon reads its
    first line as "type: description", and ours are sentences that may hold a colon."""
    if what in ("data", "attribute", "property") and name in _ATTRIBUTE_TEXT:
        lines[:] = _ATTRIBUTE_TEXT.pop(name)
        return
    # the types of an Attributes section (napoleon's ``:vartype:``) are prose ("(S, T) int32
    # array"), not cross-references: written before the attribute's description, as the types of
    # Parameters are (napoleon_use_param false)
    types = {}
    for line in lines:
        m = re.match(r":vartype (.+?): (.*)$", line)
        if m:
            types[m.group(1)] = m.group(2).replace("*", "\\*")
    if types:
        out = []
        for line in lines:
            if line.startswith(":vartype "):
                continue
            m = re.match(r":ivar (.+?):(?: (.*))?$", line)
            if m and m.group(1) in types:
                # "name, source : str" documents two attributes alike
                for name in m.group(1).split(", "):
                    out.append(f":ivar {name}: ({types[m.group(1)]}) {m.group(2) or ''}".rstrip())
                continue
            out.append(line)
        lines[:] = out


def _api_lines(modname: str) -> list[str]:
    """The reST of one module's API page: its docstring, a summary table of ``__all__``, then one
    autodoc directive per public name (looked up by attribute, so lazy exports render too)."""
    import importlib
    import inspect

    module = importlib.import_module(modname)
    names = list(module.__all__)
    # a name the package itself exports (irrepro.InputError) is indexed there only, so that a
    # reference to it is not ambiguous; its module's page shows it too
    package = importlib.import_module("irrepro")
    top = {id(getattr(package, n)) for n in package.__all__} if modname != "irrepro" else set()
    lines = [f".. automodule:: {modname}", "", ".. autosummary::", "   :nosignatures:", ""]
    lines += [f"   {name}" for name in names]
    lines.append("")
    for name in names:
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            lines += [f".. automodule:: {obj.__name__}", "   :members:", ""]
        elif inspect.isclass(obj):
            kind = "autoexception" if issubclass(obj, BaseException) else "autoclass"
            lines += [f".. {kind}:: {modname}.{name}", "   :members:"]
            lines += ["   :no-index:", ""] if id(obj) in top else [""]
        elif callable(obj):
            lines += [f".. autofunction:: {modname}.{name}", ""]
        else:
            lines += [f".. autodata:: {modname}.{name}"]
            if len(repr(obj)) > 60:
                lines.append("   :no-value:")
            lines.append("")
    returned = _returned_classes(module, names)
    if returned:
        lines += [".. rubric:: What these functions return", ""]
        for c in returned:
            lines += [f".. autoclass:: {c.__module__}.{c.__qualname__}", "   :members:", ""]
    return lines


def _returned_classes(module, names: list[str]) -> list[type]:
    """The irrepro classes defined under ``module`` that a public function of any public module
    returns and no ``__all__`` lists: a user gets them, never builds them, so they are documented
    on their home module's page, below its public names, and the signatures' return types link there."""
    import importlib
    import inspect
    import pkgutil
    import typing

    import irrepro

    if module is irrepro:
        return []
    publics = [irrepro] + [
        importlib.import_module(f"irrepro.{m.name}")
        for m in pkgutil.iter_modules(irrepro.__path__)
        if not m.name.startswith("_") and m.name != "cli"
    ]
    listed = {id(getattr(m, n)) for m in publics for n in getattr(m, "__all__", ())}
    found: dict[str, type] = {}
    for m in publics:
        for name in getattr(m, "__all__", ()):
            obj = getattr(m, name)
            if not inspect.isfunction(obj):
                continue
            try:
                ret = typing.get_type_hints(obj).get("return")
            except Exception:  # a hint only a type checker can resolve
                continue
            for c in (ret, *typing.get_args(ret)):
                if (
                    inspect.isclass(c)
                    and c.__module__.startswith(module.__name__ + ".")
                    and id(c) not in listed
                    and not issubclass(c, BaseException)
                ):
                    found.setdefault(f"{c.__module__}.{c.__qualname__}", c)
    return [found[k] for k in sorted(found)]


def _api_directive():
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class ModuleAPI(SphinxDirective):
        """``.. irrepro-api:: irrepro.stats``: the API reference of a public module."""

        required_arguments = 1
        has_content = False

        def run(self):
            from docutils import nodes

            source = self.get_source_info()[0]
            content = StringList()
            for line in _api_lines(self.arguments[0]):
                content.append(line, source)
            node = nodes.container()
            nested_parse_with_titles(self.state, content, node)
            return node.children

    return ModuleAPI


#: The exercises of the book, page by page, with their level, time and kind of answer.
EXERCISES = Path(__file__).resolve().parents[1] / "exercises.yml"
ANSWER_WORDS = {"number": "checked (a number)", "category": "checked (a category)", "open": "open-ended"}


def _exercises_lines(path: Path = EXERCISES) -> list[str]:
    """The reST of the coursework page's exercise tables: per page, a link to it and a table of its
    exercises (label, level, minutes, kind of answer)."""
    import yaml

    pages = yaml.safe_load(path.read_text(encoding="utf-8"))
    lines: list[str] = []
    for page, exercises in pages.items():
        # each exercise's title, as its directive gives it (```{exercise} Title / :label: ex-...)
        source = (path.parent.parent / f"{page}.md").read_text(encoding="utf-8")
        titles = dict(
            (b, a.strip()) for a, b in re.findall(r"^`{3,}\{exercise\}(.*)\n:label: (\S+)$", source, re.M)
        )
        lines += [f":doc:`/{page}`", "", ".. list-table::", "   :header-rows: 1", ""]
        for cells in [("Exercise", "Level", "Minutes", "Answer")] + [
            (
                f":ref:`{titles[e['label']]} <{e['label']}>`",
                e["level"],
                str(e["minutes"]),
                ANSWER_WORDS[e["answer"]],
            )
            for e in exercises
        ]:
            lines += [f"   * - {cells[0]}"] + [f"     - {c}" for c in cells[1:]]
        lines.append("")
    return lines


def _exercises_directive():
    from sphinx.util.docutils import SphinxDirective

    class Exercises(SphinxDirective):
        """``.. irrepro-exercises::``: the book's exercises (``book/exercises.yml``) as tables."""

        has_content = False

        def run(self):
            from docutils import nodes
            from docutils.statemachine import StringList
            from sphinx.util.nodes import nested_parse_with_titles

            self.env.note_dependency(str(EXERCISES))
            source = self.get_source_info()[0]
            content = StringList()
            for line in _exercises_lines():
                content.append(line, source)
            node = nodes.container()
            nested_parse_with_titles(self.state, content, node)
            return node.children

    return Exercises


def _add_css(app):
    """The book's own style sheet (book/_static/irrepro.css: tables at phone width), whatever the
    configuration the book is built with (the student edition's too)."""
    static = str(Path(__file__).resolve().parents[1] / "_static")
    if static not in app.config.html_static_path:
        app.config.html_static_path.append(static)
    app.add_css_file("irrepro.css")


def setup(app):
    global _HiddenSolution
    from irrepro.book._config import BOOK_BUILD_ENV

    # inherited by every kernel the build starts: they glue a chapter's full tables for its sub-pages
    os.environ[BOOK_BUILD_ENV] = "1"
    from docutils import nodes

    _HiddenSolution = type("hidden_solution_node", (nodes.Element,), {})
    app.add_node(_HiddenSolution)
    # after sphinx-exercise registered its directives, whatever the order of the extensions
    app.connect("builder-inited", _override_solution_start)
    app.connect("doctree-read", _drop_hidden_solutions)
    app.connect("config-inited", _repository, priority=400)
    app.connect("config-inited", _pair_notebooks, priority=950)  # after the toc is parsed
    # after the theme's header buttons (501), which copy the executed notebook to _sources
    app.connect("html-page-context", _setup_cell_in_download, priority=502)
    app.connect("config-inited", _use_local_mathjax, priority=900)
    app.connect("builder-inited", _add_css)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _copy_example_report)
    app.connect("build-finished", _student_sources)
    # after the other env-before-read-docs handlers, so that nothing reorders it again
    app.connect("env-before-read-docs", _read_scorecard_last, priority=900)
    app.connect("env-before-read-docs", _pre_execute, priority=950)
    app.connect("env-get-outdated", _reread_gatherers)
    app.connect("env-check-consistency", _check_pasted)
    app.add_config_value("irrepro_edition", "book", "env")
    app.add_config_value("irrepro_execute_first", [], "env")
    app.add_config_value("irrepro_execute_after", {}, "env")
    app.connect("config-inited", _edition_tag)
    # html-page-context is emitted with emit_firstresult: run before any handler that returns a
    # template name (which would stop the emission)
    app.connect("html-page-context", _dedupe_assets, priority=100)
    app.add_directive("irrepro-api", _api_directive())
    app.add_directive("irrepro-exercises", _exercises_directive())
    app.connect("autodoc-process-docstring", _api_docstring, priority=400)  # napoleon's is 500
    app.connect("autodoc-process-docstring", _api_attribute_text, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
