"""The hand-labelled sample of real commands (corpus/labelled_sample.jsonl, bench/labelled_share.py).

The label file holds no command text: each line names a shared corpus file and the SHA-256 of a
command in it. Its format is checked always; that it is exactly the sample the bench draws, and
that shellgate allows none of the commands labelled not read-only (a false approval is a hole or
a label mistake), only when ``../shared/corpus-data`` is present (skipped with the reason else).
"""

from __future__ import annotations

import collections
import importlib.util
import re
from pathlib import Path

import pytest
from conftest import CORPUS_DATA

BENCH = Path(__file__).resolve().parent.parent / "bench" / "labelled_share.py"
_spec = importlib.util.spec_from_file_location("labelled_share", BENCH)
share = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(share)
LABELS = share.load_labels()


def _need_data() -> None:
    if not CORPUS_DATA.is_dir():
        pytest.skip(f"shared corpus data not found at {CORPUS_DATA}: the labels cannot be joined")


def test_label_fields() -> None:
    assert len(LABELS) == sum(share.QUOTAS.values()) == 1000
    for label in LABELS:
        assert set(label) == {"file", "sha256", "readonly", "why"}, label
        assert label["file"] in share.QUOTAS, label
        assert re.fullmatch(r"[0-9a-f]{64}", label["sha256"]), label
        assert isinstance(label["readonly"], bool), label
        assert isinstance(label["why"], str) and 0 < len(label["why"]) <= 100, label
    keys = collections.Counter((label["file"], label["sha256"]) for label in LABELS)
    assert [k for k, n in keys.items() if n > 1] == []
    per_file = collections.Counter(label["file"] for label in LABELS)
    assert per_file == collections.Counter(share.QUOTAS)


def test_labels_are_the_drawn_sample() -> None:
    _need_data()
    drawn = [(name, share.sha256(cmd)) for name, cmd in share.draw(CORPUS_DATA)]
    assert drawn == [(label["file"], label["sha256"]) for label in LABELS]
    rows = share.joined(CORPUS_DATA)  # every hash is found in its file
    assert len(rows) == len(LABELS)
    for label, cmd in rows:  # a reason in our own words: it never quotes its command
        assert label["why"] not in cmd, label


def test_no_false_approval(tmp_path: Path) -> None:
    _need_data()
    r = share.measure(share.joined(CORPUS_DATA), *share.world(tmp_path))
    assert [(label["file"], label["sha256"], label["why"]) for label, _, _ in r["false"]] == []
    assert r["readonly"] > 300
