#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit that carry no reason for it.

    scripts/function_size.py [--limit 80] [--all] [--baseline FILE [--write-baseline]] [PATH...]

A function's length is the count of lines from its signature's first line to its closing
brace. A function may be longer than the limit when the comment block right above it holds a
line starting with "Long:" that says why (e.g. "/// Long: one table of every option, in the
order --help prints them."). Exit status 1 when a function is over the limit without one, 0
otherwise; --all lists every function over the limit, reasons included.

--baseline FILE names the functions that were over the limit without a reason when the gate
came (lines "PATH FUNCTION LINES"): those pass while they do not grow, and the gate fails on
any other, so the list only shrinks. A listed function that is now within the limit, or gone,
is reported so that its line is deleted. --write-baseline writes the current list to FILE.

The scanner reads C++ as clang-format lays it out (scripts/format.sh): comments, string and
character literals are blanked first; a function body is a brace block whose opening follows
a parameter list at namespace or class scope (not a control statement, lambda, initializer
or type definition). Lambdas and local classes count toward the function that holds them.
"""
import argparse
import os
import re
import sys

CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "try"}


def blank_comments_and_literals(text):
    """The text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = text[i + 2:k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # a digit separator (1'000) is not a character literal
            if c == "'" and i > 0 and text[i - 1].isalnum() and j - i > 3:
                out.append(c)
                i += 1
                continue
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def head_kind(head):
    """What the brace that follows `head` (the code since the last ; { or }) opens."""
    h = " ".join(head.split())
    if not h:
        return "block"
    if re.match(r"^(template\s*<.*>\s*)?(class|struct|union|namespace|enum)\b", h) or re.match(
            r"^(extern\s+\"C\"|namespace)\b", h):
        return "scope" if not h.startswith("enum") else "init"
    if h.endswith("=") or h.endswith(",") or h.endswith("(") or h.endswith("return"):
        return "init"
    if ")" not in h:
        return "init"  # braced initializer: Type name{...}
    first = re.match(r"^\W*(\w+)", h)
    if first and first.group(1) in CONTROL:
        return "block"
    if re.search(r"\]\s*(\([^()]*\))?\s*(mutable\s*)?(->\s*[\w:<>]+\s*)?$", h):
        return "block"  # lambda
    return "function"


def functions(path):
    """(line, length, name) of each function body in the file."""
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    text = blank_comments_and_literals(raw)
    line_of = []
    line = 1
    for ch in text:
        line_of.append(line)
        if ch == "\n":
            line += 1
    stack = []  # "scope", "function", "block", "init"
    head_start = 0
    found = []
    fn_open = None
    for i, ch in enumerate(text):
        if ch in ";":
            head_start = i + 1
        elif ch == "{":
            inside_function = any(k == "function" for k in stack)
            kind = "block" if inside_function else head_kind(text[head_start:i])
            if kind == "function" and not inside_function:
                head = text[head_start:i]
                label = re.match(r"\s*((public|private|protected)\s*:)?\s*", head)  # an access specifier is not the signature
                first = head_start + label.end()
                head = head[label.end():]
                name = re.findall(r"([~\w:]+)\s*\(", head)
                fn_open = (line_of[first], name[0] if name else "?")
            stack.append(kind)
            head_start = i + 1
        elif ch == "}":
            kind = stack.pop() if stack else "block"
            if kind == "function" and not any(k == "function" for k in stack):
                start, name = fn_open
                found.append((start, line_of[i] - start + 1, name))
            head_start = i + 1
    return raw.split("\n"), found


def reason(lines, start):
    """The "Long:" reason in the comment block above line `start` (1-based), or None."""
    i = start - 2
    while i >= 0 and re.match(r"^\s*(template\b|\[\[)", lines[i]):
        i -= 1
    while i >= 0 and re.match(r"^\s*//", lines[i]):
        m = re.match(r"^\s*///?\s*Long:\s*(.*)", lines[i])
        if m:
            return m.group(1).strip() or None
        i -= 1
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--all", action="store_true", help="also list the functions over the limit that give a reason")
    ap.add_argument("--baseline", help="functions over the limit allowed while they do not grow")
    ap.add_argument("--write-baseline", action="store_true", help="write the functions over the limit to --baseline")
    ap.add_argument("paths", nargs="*", default=["src"])
    args = ap.parse_args()
    baseline = {}
    if args.baseline and not args.write_baseline and os.path.exists(args.baseline):
        with open(args.baseline, encoding="utf-8") as f:
            for n, text in enumerate(f, 1):
                if not text.strip() or text.startswith("#"):
                    continue
                parts = text.split()
                if len(parts) != 3 or not parts[2].isdigit():
                    print(f"{args.baseline}:{n}: expected \"PATH FUNCTION LINES\", got \"{text.strip()}\"")
                    return 1
                baseline[(parts[0], parts[1])] = int(parts[2])
    seen = set()
    debt = []
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith((".cpp", ".hpp"))]
        else:
            files.append(p)
    bad = 0
    long_ = 0
    for path in sorted(files):
        lines, found = functions(path)
        for start, length, name in found:
            if length <= args.limit:
                continue
            long_ += 1
            why = reason(lines, start)
            if why is None:
                debt.append(f"{path} {name} {length}")
                allowed = baseline.get((path, name))
                seen.add((path, name))
                if allowed is not None and length <= allowed:
                    continue
                bad += 1
                grew = f" (the baseline allows {allowed})" if allowed is not None else ""
                print(f"{path}:{start}: {name}: {length} lines{grew}, over {args.limit} with no \"Long:\" reason above it")
            elif args.all:
                print(f"{path}:{start}: {name}: {length} lines: {why}")
    if args.write_baseline:
        with open(args.baseline, "w", encoding="utf-8") as f:
            f.write("# Functions of src/ over the limit without a reason when the gate came (scripts/function_size.py).\n")
            f.write("# Each may not grow; split it or give it a Long: reason, then delete its line.\n")
            f.write("".join(line + "\n" for line in sorted(debt)))
    for key in sorted(set(baseline) - seen):
        print(f"{args.baseline}: {key[0]} {key[1]} is within the limit now (or gone): delete its line")
    print(f"function_size: {long_} functions over {args.limit} lines in {len(files)} files, {len(debt)} without a "
          f"reason ({len(debt) - bad} of them in the baseline), {bad} failing", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
