"""The change bus: synchronous delivery, unsubscribe, a failing subscriber never breaks the publisher."""

import logging
import threading

import pytest

from reader.events import LOCAL, OUTSIDE, Change, ChangeBus, Changes


def test_change_values_are_lowercase_names():
    assert {c.value for c in Change} == {c.name.lower() for c in Change}
    assert Change("star") is Change.STAR


def test_changes_of_builds_frozen_sets():
    ch = Changes.of(Change.STAR, ["a", "b", "a"])
    assert ch == Changes(frozenset({"a", "b"}), frozenset({Change.STAR}), LOCAL)
    assert Changes.of([Change.TAG, Change.NOTE], origin="triage").kinds == {Change.TAG, Change.NOTE}
    with pytest.raises(AttributeError):
        ch.ids = frozenset()  # type: ignore[misc]


def test_unknown_ids_touch_everything():
    some = Changes.of(Change.STAR, ["a"])
    unknown = Changes.of(Change.OUTSIDE, origin=OUTSIDE)
    assert some.touches("a") and not some.touches("b") and not some.everything
    assert unknown.touches("zzz") and unknown.everything


def test_merged_unions_and_unknown_wins():
    a = Changes.of(Change.STAR, ["a"])
    b = Changes.of(Change.TAG, ["b"])
    assert a.merged(b) == Changes.of([Change.STAR, Change.TAG], ["a", "b"])
    assert a.merged(Changes.of(Change.OUTSIDE)).ids == frozenset()


def test_publish_calls_subscribers_in_order_and_unsubscribe_stops():
    bus = ChangeBus()
    got: list[tuple[str, Changes]] = []
    stop_first = bus.subscribe(lambda c: got.append(("first", c)))
    bus.subscribe(lambda c: got.append(("second", c)))
    ch = Changes.of(Change.READ, ["x"])
    bus.publish(ch)
    assert got == [("first", ch), ("second", ch)]
    stop_first()
    stop_first()  # twice is harmless
    bus.publish(ch)
    assert got[2:] == [("second", ch)]
    assert len(bus) == 1


def test_the_same_callback_twice_is_two_subscriptions():
    bus = ChangeBus()
    seen: list[Changes] = []
    stop = bus.subscribe(seen.append)
    bus.subscribe(seen.append)
    bus.publish(Changes.of(Change.NOTE))
    assert len(seen) == 2
    stop()
    bus.publish(Changes.of(Change.NOTE))
    assert len(seen) == 3


def test_a_failing_subscriber_is_logged_and_the_others_still_run(caplog):
    bus = ChangeBus()
    seen: list[Changes] = []

    def broken(_c: Changes) -> None:
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    with caplog.at_level(logging.ERROR, logger="reader.events"):
        bus.publish(Changes.of(Change.STAR, ["a"]))  # does not raise
    assert len(seen) == 1
    assert "boom" in caplog.text


def test_a_subscriber_may_unsubscribe_while_being_called():
    bus = ChangeBus()
    calls: list[str] = []
    stop: list = []

    def once(_c: Changes) -> None:
        calls.append("once")
        stop[0]()

    stop.append(bus.subscribe(once))
    bus.subscribe(lambda _c: calls.append("other"))
    bus.publish(Changes.of(Change.TAG))
    bus.publish(Changes.of(Change.TAG))
    assert calls == ["once", "other", "other"]


def test_callbacks_run_on_the_publishing_thread():
    bus = ChangeBus()
    threads: list[str] = []
    bus.subscribe(lambda _c: threads.append(threading.current_thread().name))
    t = threading.Thread(target=bus.publish, args=(Changes.of(Change.IMPORT),), name="writer")
    t.start()
    t.join()
    assert threads == ["writer"]
