"""A queue of chosen papers (a map selection): exactly those, in their order, and resumable."""

from __future__ import annotations

from pathlib import Path

from reader.library import Library
from reader.triage.source import list_ids
from reader.triage.state import QueueSpec, ResumeState


def test_a_chosen_queue_round_trips_and_says_what_it_is():
    spec = QueueSpec("tag", "rl", "", "added", True, ("b", "a", "c"))
    back = ResumeState.from_json(ResumeState(spec, seen_ids=["b"], open=True).to_json())
    assert back is not None and back.spec == spec and isinstance(back.spec.ids, tuple)
    assert hash(back.spec) == hash(spec)  # frozen and hashable, as the queue spec always was
    assert spec.describe() == "Tag: rl · 3 chosen on the map"
    assert QueueSpec(ids=("x",)) != QueueSpec()  # another queue than the list's own


def test_the_chosen_papers_are_the_queue_whatever_the_view(tmp_path: Path):
    with Library.open(tmp_path / "lib") as lib:  # the seeds
        ids = lib.paper_ids()
        chosen = (ids[7], ids[2], ids[7], ids[30])
        assert list_ids(lib, QueueSpec("starred", ids=chosen)) == ([ids[7], ids[2], ids[30]], [])
        assert list_ids(lib, QueueSpec())[0] == ids  # no choice: the view's list as before
