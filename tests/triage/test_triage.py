"""Triage core: queue orders and movement, tail-only re-ranking, pace, progress text, resume state."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from reader.triage import (
    Pace,
    QueueSpec,
    ResumeState,
    TriageQueue,
    order_unread_first,
    progress_text,
    rank_like,
    resume_ids,
)
from reader.triage.pace import duration_text
from reader.triage.queue import full_tail
from reader.triage.source import merge_seeds, stable_legend

IDS = [f"p{i:02d}" for i in range(20)]


def test_move_marks_seen_and_finishes_past_the_end() -> None:
    q = TriageQueue(IDS[:3])
    assert (q.current, q.seen) == ("p00", 1)
    assert q.move(1) and (q.current, q.seen) == ("p01", 2)
    assert q.move(-1) and (q.current, q.seen) == ("p00", 2)  # going back keeps what was seen
    assert not q.move(-1)
    q.move(1)
    q.move(1)
    assert q.current == "p02" and not q.finished
    assert q.move(1) and q.finished and q.current is None and q.seen == 3
    assert not q.move(1)
    assert q.move(-1) and q.current == "p02"  # back from the summary to the last paper


def test_reorder_touches_only_the_unseen_tail() -> None:
    q = TriageQueue(IDS[:6])
    q.move(1)  # p00, p01 seen
    q.reorder_tail(list(reversed(IDS[:6])))  # a ranking that would put p05 first and p00 last
    assert q.ids == ["p00", "p01", "p05", "p04", "p03", "p02"]
    assert q.current == "p01"  # the paper on screen did not move


def test_reorder_of_a_stale_ranking_keeps_papers_seen_meanwhile() -> None:
    q = TriageQueue(IDS[:6])
    ranking_started_on = q.tail()  # p01..p05
    q.move(1)
    q.move(1)  # p01 and p02 became seen while the ranking ran
    q.reorder_tail(["p04", "p02", "p05"])  # partial ranking: p01/p02 are seen, p03 is missing
    assert q.ids[:3] == ["p00", "p01", "p02"]
    assert q.ids[3:] == ["p04", "p05", "p03"]
    assert sorted(q.ids) == sorted(IDS[:6]) and len(ranking_started_on) == 5


def test_a_tail_ranked_off_thread_is_applied_around_papers_seen_meanwhile() -> None:
    q = TriageQueue(IDS[:8])
    seen_then, version, tail = q.seen, q.version, q.tail()  # p01..p07, handed to a worker
    new_tail = full_tail(["p07", "p02", "p06"], tail)
    assert new_tail == ["p07", "p02", "p06", "p01", "p03", "p04", "p05"]
    q.move(1)
    q.move(1)  # p01, p02 seen before the ranking arrived
    q.apply_tail(seen_then, version, new_tail)
    assert q.ids == ["p00", "p01", "p02", "p07", "p06", "p03", "p04", "p05"] and q.current == "p02"
    stale = q.version - 1  # another reorder happened since: the general path still keeps the prefix
    q.apply_tail(q.seen, stale, ["p05", "p04"])
    assert q.ids[:3] == ["p00", "p01", "p02"] and q.ids[3:5] == ["p05", "p04"]


def test_remove_keeps_the_current_paper() -> None:
    q = TriageQueue(IDS[:6], position=2)
    q.remove({"p00", "p04"})
    assert q.current == "p02" and q.ids == ["p01", "p02", "p03", "p05"] and q.seen == 2
    q.remove({"p02"})
    assert q.current == "p03"


def test_unread_first_newest_first() -> None:
    newest_first = ["p03", "p02", "p01", "p00"]
    assert order_unread_first(["p00", "p01", "p02", "p03"], {"p00", "p02"}, newest_first) == \
        ["p02", "p00", "p03", "p01"]


class FakeLibrary:
    """more_like ranks by a fixed similarity table: the sum of each seed's scores."""

    def __init__(self, scores: dict[str, dict[str, float]], total: int = 20) -> None:
        self.scores = scores
        self.calls: list[tuple[list[str], int, list[str]]] = []
        self.total = total

    def counts(self) -> SimpleNamespace:
        return SimpleNamespace(total=self.total)

    def more_like(self, ids: Sequence[str], limit: int = 10, exclude: Sequence[str] = ()) -> list[tuple[str, float]]:
        self.calls.append((list(ids), limit, list(exclude)))
        totals: dict[str, float] = {}
        for seed in ids:
            for pid, s in self.scores.get(seed, {}).items():
                if pid not in ids and pid not in exclude:
                    totals[pid] = totals.get(pid, 0.0) + s
        return sorted(totals.items(), key=lambda kv: -kv[1])[:limit]


def test_rank_like_uses_more_like_and_keeps_unranked_in_list_order() -> None:
    lib = FakeLibrary({"s1": {"p03": 0.9, "p01": 0.5, "zz": 0.95}})
    ranked = rank_like(lib, ["s1"], ["p00", "p01", "p02", "p03"])
    assert ranked == ["p03", "p01", "p00", "p02"]  # zz is not a candidate
    seeds, limit, exclude = lib.calls[0]
    assert seeds == ["s1"] and limit >= 20 and exclude == ["s1"]


def test_rank_like_without_seeds_or_candidates_is_the_list_order() -> None:
    lib = FakeLibrary({"s1": {"a": 1.0}})
    assert rank_like(lib, [], ["b", "a", "b"]) == ["b", "a"]
    assert rank_like(lib, ["s1"], []) == []
    assert lib.calls == []  # nothing to rank: no similarity work


def test_rank_like_puts_starred_candidates_first() -> None:
    lib = FakeLibrary({"p02": {"p01": 1.0}})
    assert rank_like(lib, ["p02"], ["p00", "p01", "p02"]) == ["p02", "p01", "p00"]


def test_starring_more_reranks_the_tail_without_moving_the_current_paper() -> None:
    """The re-rank loop of best first: star, rank the tail by the stars, apply to the tail only."""
    lib = FakeLibrary({
        "p00": {"p05": 1.0, "p09": 0.8},
        "p02": {"p07": 2.0, "p09": 1.5},
    })
    q = TriageQueue(IDS[:10], order="best_first")
    stars = ["p00"]
    q.reorder_tail(rank_like(lib, stars, q.tail()))
    assert q.ids[:3] == ["p00", "p05", "p09"]
    q.move(1)
    q.move(1)  # on p09
    assert q.current == "p09"
    stars.append("p09")  # starring p09 brings nothing new from the fake; star p02-like papers:
    stars.append("p02")
    q.reorder_tail(rank_like(lib, stars, q.tail()))
    assert q.current == "p09" and q.ids[:3] == ["p00", "p05", "p09"]
    assert q.ids[3:5] == ["p02", "p07"]  # the starred candidate, then its neighbour


def test_pace_is_the_median_of_recent_decisions_pauses_left_out() -> None:
    now = [0.0]
    pace = Pace(clock=lambda: now[0])
    for _ in range(10):  # a slow start: one paper a minute
        now[0] += 60
        pace.step()
    for _ in range(100):  # then 3 s a paper
        now[0] += 3
        pace.step()
    assert pace.seconds_per_paper() == 3
    assert pace.seconds_left(1600) == 4800
    now[0] += 400  # a long pause, then on at the same pace: the pause does not count
    pace.step()
    now[0] += 3
    pace.step()
    assert pace.seconds_per_paper() == 3


def test_time_left_does_not_jump_after_one_slow_paper() -> None:
    """The issue's case: at 50k the estimate went from 2 h 12 min to 22 h 13 min after one paper."""
    now = [0.0]
    pace = Pace(clock=lambda: now[0])
    for gap in [0.2] * 10 + [2.0, 3.0, 4.5] * 10:  # a held J, then reading; 49,000 papers to go
        now[0] += gap
        pace.step()
    before = progress_text(1000, 50_000, 3, pace.seconds_left(49_000))
    now[0] += 170  # one paper read for almost three minutes
    pace.step()
    after = progress_text(1001, 50_000, 3, pace.seconds_left(48_999))
    assert before.split("·")[-1] == after.split("·")[-1] == " ~41 h left at your pace"
    now[0] += 1200  # a twenty-minute pause is no decision at all
    pace.step()
    assert progress_text(1002, 50_000, 3, pace.seconds_left(48_998)).endswith("~41 h left at your pace")


def test_progress_text() -> None:
    assert progress_text(412, 3300, 37, 4800) == "412 / 3,300 · 37 starred · ~1 h 20 min left at your pace"
    assert progress_text(1, 3300, 0, None) == "1 / 3,300 · 0 starred"
    assert duration_text(20) == "<1 min" and duration_text(600) == "~10 min" and duration_text(7200) == "~2 h"
    assert duration_text(13 * 60 + 20) == "~15 min" and duration_text(7920 + 200) == "~2 h 20 min"
    assert duration_text(22 * 3600 + 13 * 60) == "~22 h"


def test_resume_state_round_trip_and_garbage() -> None:
    state = ResumeState(QueueSpec("tag", "rl", "attention", "year", False), "best_first", ["a", "b"], 1, open=True)
    assert ResumeState.from_json(state.to_json()) == state
    for bad in ("", "null", "[]", '{"version": 99}', '{"version": 1}', "{"):
        assert ResumeState.from_json(bad) is None
    assert QueueSpec("tag", "rl", "attention").describe() == "Tag: rl · search “attention”"


@pytest.mark.parametrize(("position", "existing", "expected_current", "expected_seen"), [
    (1, {"a", "b", "c", "x", "y"}, "b", 3),
    (1, {"a", "c", "x", "y"}, "c", 2),  # the paper on screen was deleted: its successor
])
def test_resume_ids(position: int, existing: set[str], expected_current: str, expected_seen: int) -> None:
    ids, pos, seen = resume_ids(["a", "b", "c"], ["x", "a", "y", "c"], existing, position)
    assert ids[pos] == expected_current and seen == expected_seen
    assert ids[seen:] == ["x", "y"]  # the list's unseen papers follow, in list order


def test_stable_legend_keeps_digits_and_fills_free_ones() -> None:
    assert stable_legend([], ["rl", "gan", "nlp"]) == ["rl", "gan", "nlp"]
    # gan became the most used and "old" is gone: rl keeps 1, gan keeps 2, nlp takes the free 3.
    assert stable_legend(["rl", "gan", "old"], ["gan", "rl", "nlp", "cv"]) == ["rl", "gan", "nlp", "cv"]
    assert len(stable_legend([], [f"t{i}" for i in range(20)])) == 9


def test_merge_seeds_newest_session_first_without_unstarred() -> None:
    assert merge_seeds(["a", "b"], ["c", "a", "d"], {"d"}) == ["b", "a", "c"]


def test_library_reads_on_the_seeds(tmp_path) -> None:
    from reader.library import Library, View
    from reader.triage.queue import UNREAD_FIRST
    from reader.triage.source import interest, list_ids, order_ids, summarize, top_tags

    with Library.open(tmp_path / "lib") as lib:
        ids = lib.paper_ids(View())
        lib.set_starred(ids[:2], True)
        lib.add_tags(ids[1:4], ["rl"])
        lib.add_tags(ids[5:6], ["gan"])
        lib.set_read(ids[:3], True)
        lib.set_note(ids[0], "hm")
        assert interest(lib, ids[:10]) == (2, [ids[0], ids[1], ids[5], *ids[2:4]])  # starred, then by tag name
        assert top_tags(lib) == ["rl", "gan"]
        assert order_ids(lib, ids[:5], UNREAD_FIRST) == [*ids[3:5], *ids[:3]]
        assert list_ids(lib, QueueSpec("tag", "rl"))[0] == ids[1:4]
        assert summarize(lib, ids[:6]).describe() == "6 papers · 3 read · 2 starred · 4 tagged · 1 with notes"
