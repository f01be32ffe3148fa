#!/usr/bin/env python3
"""Runs one golden case of ccsim and compares its output with the golden file (docs/testing.md).

The golden file holds the command's whole output (stdout then stderr, or the file it writes)
after a header that says how to produce it: the command line and its exit code, and the
lines the comparison leaves out, if any. Where the header goes depends on the golden's format:

  .txt  the first lines, each '# ...'
  .md   the first lines, each '<!-- ... -->' (invisible once rendered)
  .csv .json .xml  a sidecar FILE.cmd next to it, in the .txt form, so that the golden stays a
        file that any reader of its format loads

The test fails when the exit code differs, when the header differs from the registered one
(both printed), or when the compared lines differ (a unified diff of them, at most
--max-diff-lines lines). With CCSIM_UPDATE_GOLDEN set, it first rewrites the golden (and its
sidecar) from this run.

Filters, given by the registration, apply alike to the golden and to the output:
  --ignore REGEX        a line matching REGEX (re.search) is not compared
  --ignore-block REGEX  a line matching REGEX, and the lines after it up to and including
                        the next empty line, are not compared
"""

import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree

SIDECAR_FORMATS = (".csv", ".json", ".xml")
OUT_MARK = "@OUT@"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ccsim", required=True, help="the program to run")
    parser.add_argument("--args", default="", help="its arguments, separated by '|'")
    parser.add_argument("--rc", type=int, required=True, help="the expected exit code")
    parser.add_argument("--expected", required=True, help="the golden file")
    parser.add_argument("--workdir", required=True, help="where the command runs")
    parser.add_argument("--name", required=True, help="the golden's name (ctest golden.NAME)")
    parser.add_argument("--actual-dir", required=True, help="where a failing output is kept")
    parser.add_argument("--outdir", help=f"a directory for {OUT_MARK} in the arguments")
    parser.add_argument("--output", help=f"compare this file (under {OUT_MARK}) instead of stdout")
    parser.add_argument("--well-formed", action="append", default=[],
                        help=f"a file (under {OUT_MARK}) that must parse as XML")
    parser.add_argument("--ignore", action="append", default=[], metavar="REGEX")
    parser.add_argument("--ignore-block", action="append", default=[], metavar="REGEX")
    parser.add_argument("--max-diff-lines", type=int, default=80)
    return parser.parse_args(argv)


def header_lines(opts, program, args):
    """The header's lines, without their comment markers."""
    lines = [" ".join([program] + [shlex.quote(a) for a in args]), f"exit {opts.rc}"]
    if opts.output:
        lines.append(f"compared: the file {opts.output} it writes ({OUT_MARK}: the directory given)")
    lines += [f"not compared: lines matching {r}" for r in opts.ignore]
    lines += [f"not compared: from a line matching {r} to the next empty line" for r in opts.ignore_block]
    return lines


def render_header(lines, expected):
    if expected.endswith(".md"):
        return "".join(f"<!-- {line} -->\n" for line in lines)
    return "".join(f"# {line}\n" for line in lines)


def split_golden(text, expected):
    """(header lines as written, body) of an in-file golden: its command line, then the lines
    of the forms header_lines writes (so that an output may start with a comment line)."""
    form = r"<!-- {} -->\n" if expected.endswith(".md") else r"# {}\n"
    first = re.compile(form.format(".*"))
    rest = re.compile(form.format(r"(exit -?\d+|compared: .*|not compared: .*)"))
    header = []
    pos = 0
    pattern = first
    while True:
        match = pattern.match(text, pos)
        if not match:
            return header, text[pos:]
        header.append(match.group(0).rstrip("\n"))
        pos = match.end()
        pattern = rest


def compared_lines(text, opts):
    ignore = [re.compile(r) for r in opts.ignore]
    blocks = [re.compile(r) for r in opts.ignore_block]
    kept = []
    in_block = False
    for line in text.splitlines(keepends=True):
        if in_block:
            in_block = line.strip() != ""
            continue
        if any(b.search(line) for b in blocks):
            in_block = line.strip() != ""
            continue
        if not any(r.search(line) for r in ignore):
            kept.append(line)
    return kept


def run(opts, args):
    if opts.outdir:
        shutil.rmtree(opts.outdir, ignore_errors=True)
        args = [a.replace(OUT_MARK, opts.outdir) for a in args]
    proc = subprocess.run([opts.ccsim] + args, cwd=opts.workdir, capture_output=True)
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    return proc.returncode, out


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def main(argv):
    opts = parse_args(argv)
    args = opts.args.split("|") if opts.args else []
    program = os.path.basename(opts.ccsim)
    pretty = " ".join([program] + args)
    rc, out = run(opts, args)
    actual = out
    if opts.output and rc == opts.rc:
        actual = read(opts.output.replace(OUT_MARK, opts.outdir)).replace(opts.outdir, OUT_MARK)

    sidecar = opts.expected.endswith(SIDECAR_FORMATS)
    header = render_header(header_lines(opts, program, args), opts.expected)
    header_file = opts.expected + ".cmd" if sidecar else opts.expected
    update_hint = f"If the change is intended: CCSIM_UPDATE_GOLDEN=1 ctest --test-dir build -R '^golden.{opts.name}$'"
    if os.environ.get("CCSIM_UPDATE_GOLDEN") and rc == opts.rc:
        if sidecar:
            write(header_file, header)
            write(opts.expected, actual)
        else:
            write(opts.expected, header + actual)

    if rc != opts.rc:
        print(f"{pretty}: exit code {rc}, expected {opts.rc}\n{out}")
        return 1

    golden = read(opts.expected)
    if sidecar:
        written = read(header_file) if os.path.exists(header_file) else ""
        body = golden
        written_header = written.splitlines()
    else:
        written_header, body = split_golden(golden, opts.expected)
    if written_header != header.splitlines():
        print(f"the header of {header_file} does not match the command registered for golden.{opts.name}")
        print("  in the file:\n" + "".join(f"    {line}\n" for line in written_header or ["(none)"]))
        print("  registered:\n" + "".join(f"    {line}\n" for line in header.splitlines()))
        print(update_hint)
        return 1

    # The header is part of both sides, so that the diff's line numbers are the file's.
    in_file = "" if sidecar else header
    expected_lines = compared_lines(in_file + body, opts)
    actual_lines = compared_lines(in_file + actual, opts)
    if expected_lines != actual_lines:
        os.makedirs(opts.actual_dir, exist_ok=True)
        actual_file = os.path.join(opts.actual_dir, opts.name + ".actual")
        write(actual_file, in_file + actual)
        delta = list(difflib.unified_diff(expected_lines, actual_lines, opts.expected, actual_file))
        delta = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in delta]
        filtered = " (the lines compared: the header's 'not compared' lines left out)" if (
            opts.ignore or opts.ignore_block) else ""
        print(f"{pretty}: output differs from {opts.expected}{filtered}:")
        sys.stdout.write("".join(delta[:opts.max_diff_lines]))
        if len(delta) > opts.max_diff_lines:
            print(f"... {len(delta) - opts.max_diff_lines} more lines of diff; the whole output is in {actual_file}")
        print(update_hint)
        return 1

    for path in opts.well_formed:
        path = path.replace(OUT_MARK, opts.outdir)
        try:
            xml.etree.ElementTree.parse(path)
        except (OSError, xml.etree.ElementTree.ParseError) as error:
            print(f"{path} is not well-formed: {error}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
