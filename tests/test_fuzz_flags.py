"""Flag harvesting: every option a help text spells, with getopt's abbreviations."""

from __future__ import annotations

import shutil

import pytest

from shellgate.fuzz.flags import Flag, Universe, harvest, harvest_all, parse_aliases, parse_help

SORT_LIKE = """\
Usage: sort [OPTION]... [FILE]...
  -b, --ignore-leading-blanks  ignore leading blanks
  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type
  -o, --output=FILE           write result to FILE instead of standard output
      --compress-program=PROG  compress temporaries with PROG
      --color[=WHEN]          colorize the output; WHEN can be 'always'
  -S, --buffer-size=SIZE      use SIZE for main memory buffer
"""
FIND_LIKE = """\
Actions:
      -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print
      -fprint0 FILE -fprint FILE -ls -fls FILE -prune -quit
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;
"""
GIT_LIKE = """\
usage: git log [<options>] [<revision-range>] [[--] <path>...]
    -q, --quiet           suppress diff output
    --decorate-refs <pattern>
    --output <file>       output to a specific file
"""


def flags(text):
    return {f.name: f for f in parse_help(text)}


def test_gnu_help_options_and_metavars():
    got = flags(SORT_LIKE)
    assert got["--output"] == Flag("--output", "FILE")
    assert got["-o"].arg == "FILE"            # shares the long twin's value
    assert got["--compress-program"].arg == "PROG"
    assert got["--color"].optional and got["--color"].arg == "WHEN"
    assert got["-b"].arg is None


def test_single_dash_long_options():
    got = flags(FIND_LIKE)
    for name in ("-delete", "-fprint", "-fprint0", "-fls", "-exec", "-ok", "-printf"):
        assert name in got, name
    assert got["-fprint"].arg == "FILE"
    assert got["-exec"].arg == "COMMAND"


def test_git_style_angle_metavars():
    got = flags(GIT_LIKE)
    assert got["--output"].arg == "file"
    assert got["-q"].arg is None


def test_aliases():
    assert parse_aliases(SORT_LIKE)["-o"] == "--output"


def test_abbreviations_are_unique_prefixes():
    u = Universe(("sort",), tuple(parse_help(SORT_LIKE)), tuple(parse_aliases(SORT_LIKE).items()))
    ab = u.abbreviations("--output")
    assert "--out" in ab and "--o" in ab and "--output" not in ab
    # --co is ambiguous between --compress-program and --color
    assert "--co" not in u.abbreviations("--compress-program")
    assert "--com" in u.abbreviations("--compress-program")
    assert u.resolve("--outp") == "--output"
    assert u.resolve("--co") is None
    assert u.canonical("--out=x") == "--output"
    assert u.canonical("-ofile") == "--output"
    assert u.canonical("-o") == "--output"


@pytest.mark.skipif(shutil.which("sort") is None, reason="sort not installed")
def test_harvest_real_sort_finds_unlisted_writers():
    u = harvest(("sort",))
    names = {f.name for f in u.flags}
    assert {"--output", "--compress-program", "-o"} <= names
    assert "--help" not in names
    assert u.resolve("--compress-prog") == "--compress-program"


@pytest.mark.skipif(shutil.which("find") is None, reason="find not installed")
def test_harvest_real_find_actions(tmp_path):
    got = harvest_all([("find",), ("no-such-program-xyz",)], cache=tmp_path / "c.json")
    names = {f.name for f in got[("find",)].flags}
    assert {"-delete", "-fprint", "-exec", "-fls"} <= names
    assert got[("no-such-program-xyz",)].flags == ()
    again = harvest_all([("find",)], cache=tmp_path / "c.json")   # from the cache
    assert again[("find",)] == got[("find",)]
