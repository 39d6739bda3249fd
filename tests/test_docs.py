"""The project's documentation stands alone: no reference to files a user does not have, links that
resolve, and every learner factory of the package listed in ``docs/algorithms.md``."""

import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FAMILIES = (
    "online",
    "experts",
    "linear",
    "multiclass",
    "structured",
    "ranking",
    "trees",
    "neighbors",
    "nn",
)


def _documents():
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_nothing_points_outside_the_project():
    sources = [*_documents(), *sorted((ROOT / "jaxlearn").rglob("*.py"))]
    offending = [
        str(p.relative_to(ROOT)) for p in sources if "../shared" in p.read_text(encoding="utf-8")
    ]
    assert not offending, f"these files point to ../shared, which users do not have: {offending}"
    for document in _documents():  # the internal design files are not named to users either
        text = document.read_text(encoding="utf-8")
        assert "DESIGN.md" not in text and "SPEC.md" not in text, document.name


# "SPEC 4.2", "SPEC section 15", "DESIGN section 4": the internal documents' numbering, which users
# cannot look up
INTERNAL_CITATION = re.compile(r"\b(SPEC|DESIGN)\b")


def test_docstrings_cite_the_books_not_the_internal_documents():
    package = ROOT / "jaxlearn"
    found = {
        str(p.relative_to(ROOT)): INTERNAL_CITATION.findall(p.read_text())
        for p in package.rglob("*.py")
    }
    offending = {name: citations for name, citations in found.items() if citations}
    assert not offending, f"these modules cite the internal specification or design: {offending}"


def test_the_docs_cite_the_books_not_the_internal_documents():
    texts = {document.name: document.read_text(encoding="utf-8") for document in _documents()}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        texts[notebook.name] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    found = {name: INTERNAL_CITATION.findall(text) for name, text in texts.items()}
    offending = {name: citations for name, citations in found.items() if citations}
    assert not offending, f"these documents cite the internal specification or design: {offending}"


@pytest.mark.parametrize("document", _documents(), ids=lambda p: p.name)
def test_relative_links_resolve(document):
    text = document.read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", text) if "://" not in t]
    missing = [t for t in targets if not (document.parent / t).exists()]
    assert not missing, f"{document.name} links to missing files: {missing}"


def test_readme_points_to_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("design", "algorithms", "theorems"):
        assert f"(docs/{page}.md)" in readme, page


def test_every_learner_factory_is_in_the_algorithm_table():
    table = (DOCS / "algorithms.md").read_text(encoding="utf-8")
    missing = []
    for family in FAMILIES:
        module = importlib.import_module(f"jaxlearn.{family}")
        for name in module.__all__:
            if (
                hasattr(getattr(module, name), "traced_hyperparameters")
                and f"`{name}(" not in table
            ):
                if f"`{family}.{name}(" not in table:
                    missing.append(f"{family}.{name}")
    assert not missing, f"docs/algorithms.md has no row for {missing}"


def test_every_public_package_has_an_api_page():
    import jaxlearn

    packages = [name for name in jaxlearn.__all__ if importlib.util.find_spec(f"jaxlearn.{name}")]
    packages.append("sklearn")  # not imported by `import jaxlearn`: it needs scikit-learn
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = []
    for name in packages:
        page = DOCS / "api" / f"{name}.md"
        if not page.is_file() or f"::: jaxlearn.{name}\n" not in page.read_text(encoding="utf-8"):
            missing.append(name)
        elif f"api/{name}.md" not in nav:
            missing.append(f"{name} (not in the mkdocs.yml nav)")
    assert not missing, f"docs/api has no page for jaxlearn.{missing}"


def test_the_readme_stays_a_five_minute_read():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; topic material belongs in docs/"
