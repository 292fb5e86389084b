"""Triage saves where it is (a second after the keys pause, on the GUI thread): the state's JSON
is made without copying each seen id (asdict deep-copied every one: ~5 ms per 2,000 ids, a stall
that grew with the session). The JSON is the same as before, and reads back."""

from __future__ import annotations

import copy
import json
from dataclasses import asdict

from reader.triage.state import STATE_VERSION, QueueSpec, ResumeState


def test_the_state_json_copies_no_id(monkeypatch) -> None:
    ids = [f"{i:016x}" for i in range(2000)]
    spec = QueueSpec("tag", "rl", "attention", "year", False, tuple(ids[:300]))
    state = ResumeState(spec, "best_first", ids, 1999, finished=False, open=True)
    expected = json.dumps({**asdict(state), "version": STATE_VERSION}, separators=(",", ":"))
    copies = []
    real = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda obj, *a, **k: copies.append(1) or real(obj, *a, **k))
    text = state.to_json()
    assert len(copies) == 0  # old code: one per id (2,300)
    assert text == expected
    assert ResumeState.from_json(text) == state
