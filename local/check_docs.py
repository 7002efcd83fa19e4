"""make lint: the README stays a front door (at most 250 lines); every relative link in it and
in docs/ resolves to a file of the repo, and to a heading of that file when it names one; and
every repository path they name in code spans (`shared/src/retry.rs`) exists."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_README_LINES = 250
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
# The repository's top-level folders: a code span starting with one of them names a path.
TOP = ("shared/", "functions/", "local/", "ops/", "bench/", "template-tests/", "docs/", "api/",
       "events/", ".ci/")


def named_paths(text: str) -> list[str]:
    """The repository paths a document names in code spans, placeholders and globs left out."""
    found = []
    for span in CODE.findall(text):
        path = span.split("::")[0].split("#")[0].rstrip(".,;:)")
        path = re.sub(r":\d+(-\d+)?$", "", path)
        if not path.startswith(TOP) or any(c in path for c in "<>*{}$"):
            continue
        found.append(path)
    return found


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            found.add(text.replace(" ", "-"))
    return found


def check(doc: Path) -> list[str]:
    problems = []
    text = doc.read_text(encoding="utf-8")
    # Code blocks hold commands and JSON, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for path in named_paths(text):
        if not (ROOT / path).exists():
            problems.append(f"{doc.relative_to(ROOT)}: names {path}, which the repository lacks")
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        if not resolved.exists():
            problems.append(f"{doc.relative_to(ROOT)}: link to missing {target}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{doc.relative_to(ROOT)}: no heading #{anchor} in {path or doc.name}")
    return problems


def main() -> int:
    readme = ROOT / "README.md"
    problems = []
    lines = len(readme.read_text(encoding="utf-8").splitlines())
    if lines > MAX_README_LINES:
        problems.append(f"README.md has {lines} lines; at most {MAX_README_LINES} (depth goes to docs/)")
    docs = [readme, *sorted((ROOT / "docs").glob("*.md"))]
    for doc in docs:
        problems.extend(check(doc))
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"docs: {len(docs)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
