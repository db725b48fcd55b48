"""HTML pages from the Jinja2 templates shipped in the package (``PACKAGE/templates/*.j2``).

Autoescaping is on, so names from definition and result files are always
escaped; pictures and plots are passed as :class:`markupsafe.Markup` to be
inlined as they are.  Jinja2 is imported here only, when a page is written.
"""

from __future__ import annotations


def render_template(package: str, name: str, **context) -> str:
    """Render the template ``name`` of ``package`` (e.g. ``bench.drawing``) with ``context``; missing names are errors."""
    # lazy: templates load only for HTML pages
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader(package, "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template(name).render(**context)


def markup(text: str):
    """``text`` marked safe to inline (an SVG picture or plot this package generated)."""
    # lazy: templates load only for HTML pages
    from markupsafe import Markup

    return Markup(text)
