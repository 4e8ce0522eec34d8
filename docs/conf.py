"""Sphinx configuration of the rankselect documentation.

Build (warnings are errors): ``sphinx-build -W -b html docs docs/_build/html`` or
``make -C docs html``. How the site is organised and how to add a page or a gallery
example: ``docs/contributing.rst``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the gallery and the executed blocks draw off screen

import rankselect  # noqa: E402

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "rankselect"
author = "the rankselect developers"
copyright = "the rankselect developers"  # noqa: A001 (Sphinx's name)
release = rankselect.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static/mathjax: formulas render offline
    "sphinx.ext.viewcode",
    "rankselect_viewcode",  # docs/_ext: the source pages' back-links land on the right anchors
    "numpydoc",
    "myst_parser",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "rankselect_docs",  # docs/_ext: executed examples, the CLI reference
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# reproduction.md (written by benches/reproduce_mq2008.py) is included by reproducing.md;
# user_guide/methods/ranker_loop_benchmark.md (written by benches/ranker_loop_report.py) by
# user_guide/methods/ranker_loop.rst; filters.md (measurements, benches/fsa_tables.py) by
# user_guide/methods/filters.rst
exclude_patterns = ["_build", "gallery", "**/README.md", "reproduction.md", "filters.md",
                    "user_guide/methods/ranker_loop_benchmark.md", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["rankselect.css"]

# ---------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types
numpydoc_show_class_members = False  # autosummary lists the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
add_module_names = False

# No intersphinx: the build runs offline (CI reaches only the package registries).

# ---------------------------------------------------------------- markdown (CHANGELOG, reproduction)
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
# docs/reproduction.md is a generated report that embeds the experiment's own report (an H1
# followed by H3 sections): its heading levels are the generator's, not this site's
suppress_warnings = ["myst.header"]

# ---------------------------------------------------------------- gallery
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every plot_*.py runs at build time
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib", "seaborn"),
    "capture_repr": ("_repr_html_", "__repr__"),
    "abort_on_example_error": True,
    "show_memory": False,
    # the "Examples in the gallery" of each API page
    "backreferences_dir": "api/generated/backreferences",
    "doc_module": ("rankselect",),
    # no sg_execution_times pages: their tables load jQuery and DataTables from CDNs, and the
    # site must work offline (tests/docs/check_offline.py)
    "write_computation_times": False,
}

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"rankselect {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    # the wide tables of the metric conventions get the whole width
    "secondary_sidebar_items": {"**": ["page-toc"], "user_guide/metrics": []},
}
# pages without sub-pages: no empty navigation column
html_sidebars = {page: [] for page in ("index", "getting_started", "cli", "changelog", "reproducing", "contributing")}
html_show_sourcelink = False
# the executed examples run on two threads unless told otherwise (results do not depend on it)
os.environ.setdefault("RAYON_NUM_THREADS", "2")
