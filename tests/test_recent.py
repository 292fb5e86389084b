"""remember_recent finds results again by argument identity, for the last few calls only."""

from __future__ import annotations

from reader.recent import remember_recent


def test_results_come_back_by_identity_for_the_last_calls_only() -> None:
    calls: list[str] = []

    @remember_recent(2)
    def upper(text: str, twice: bool = False) -> str:
        calls.append(text)
        return text.upper() * (2 if twice else 1)

    a, b, c = "".join(["a", "b"]), "".join(["c", "d"]), "".join(["e", "f"])
    assert upper(a) == "AB" and upper(b) == "CD" and upper(a) == "AB"
    assert calls == [a, b]  # a remembered
    assert upper("".join(["a", "b"])) == "AB"  # equal but not the same object: computed
    assert len(calls) == 3
    assert upper(a, True) == "ABAB"  # other arguments: computed
    upper(c)
    upper(b)  # pushed out by the last two calls
    assert calls[-1] is b and len(calls) == 6
