#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/*.md (ctest docs.links).

Every Markdown link [text](target) outside code names a file or folder that exists, and a
target's #anchor names a heading of the Markdown file it points to (GitHub's anchors: the
heading's text in lower case, punctuation other than '-' and '_' dropped, spaces as '-',
a repeated heading numbered -1, -2, ...). Links with a scheme (https:, mailto:) are not
checked, nor links that leave the repository (a sibling folder of the clone): only files
inside the repository are read.

Usage: check_doc_links.py [REPO_ROOT] [FILE.md ...]; exits 1 naming every broken link.
"""
import re
import sys
from pathlib import Path

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    in_fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, line


def slug(heading):
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)   # `code` keeps its text
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](link) keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        result = set()
        for _, line in prose_lines(path):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
        cache[path] = result
    return cache[path]


def check(root, files):
    broken = []
    checked = 0
    for md in files:
        for number, line in prose_lines(md):
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                    continue  # https:, mailto: ...
                path_part, _, anchor = target.partition("#")
                dest = md if not path_part else (md.parent / path_part).resolve()
                where = f"{md.relative_to(root)}:{number}: ({target})"
                try:
                    dest.relative_to(root)
                except ValueError:
                    continue  # outside the repository: not ours to check
                checked += 1
                if not dest.exists():
                    broken.append(f"{where}: no such file {dest.relative_to(root)}")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(f"{where}: no heading #{anchor} in {dest.relative_to(root)}")
                elif anchor and dest.is_dir():
                    broken.append(f"{where}: an anchor on a folder")
    return checked, broken


def main(argv):
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
    files = [Path(f).resolve() for f in argv[2:]] or \
        [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    checked, broken = check(root, files)
    for line in broken:
        print(line, file=sys.stderr)
    print(f"check_doc_links: {checked} relative links in {len(files)} files, "
          f"{len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
