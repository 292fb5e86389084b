"""Fuzz the importers with mutated real files; print inputs tried, internal errors and slow parses.

Usage: python benchmarks/fuzz_importers.py [--seconds 60] [--seed 1]
Every input must give a ParseResult of storable records or an InputFileError within the budget.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from reader.errors import InputFileError
from reader.importers import parse_file

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
BUDGET_S = 2.0  # per input of at most ~256 KB
MAX_SAMPLE = 256 * 1024


def _samples() -> list[tuple[str, bytes]]:
    files = [p for sub in ("bibtex", "ris_csl", "arxiv_atom") for p in (CORPORA / sub).glob("*")
             if p.suffix != ".txt" or "web_of_science" in p.name]
    files += [CORPORA / "ml_conference_corpus" / "papers_neurips_icml_iclr.csv"]
    files += list((CORPORA / "ml_conference_corpus" / "raw_paperlists").glob("*.json"))
    out = []
    for path in files:
        if path.is_file() and path.name != "README.txt":
            out.append((path.name, path.read_bytes()[:MAX_SAMPLE]))
    jsonl = CORPORA / "ml_conference_corpus" / "papers.jsonl"
    if jsonl.exists():
        with jsonl.open("rb") as handle:
            out.append(("papers.jsonl", handle.read(MAX_SAMPLE)))
    return out


_INSERTS = [b"\x00", b"{", b"}", b"[", b"]", b'"', b"\\", b"@", b"#", b"\n", b"\r", b"\xff",
            b"\xe9", b"TY  - ", b"ER  - ", b"<entry>", b"</entry>", b"9" * 5000, b"-5", b"null",
            b"[" * 5000, b'"\\ud800"', b'"\\u0000"', b"&lol;", b"$", b"\\frac{", b"\t", b","]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randrange(len(data) + 1)
        if op < 0.4:
            data[pos:pos] = rng.choice(_INSERTS)
        elif op < 0.7 and data:
            del data[pos:pos + rng.randint(1, 200)]
        elif op < 0.85 and data:
            data[pos:pos + 1] = bytes([rng.randrange(256)])
        else:
            data = data[:pos]  # truncation
    return bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    samples = _samples()
    if not samples:
        print(f"no corpora under {CORPORA}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    tried = internal = slow = slow_cpu = 0
    worst, worst_cpu, worst_name = 0.0, 0.0, ""
    end = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as folder:
        while time.monotonic() < end:
            name, data = rng.choice(samples)
            if rng.random() < 0.3:
                name = Path(name).stem  # no extension: content sniffing only
            path = Path(folder) / name
            path.write_bytes(_mutate(rng, data))
            tried += 1
            start = time.perf_counter()
            cpu = time.process_time()
            try:
                result = parse_file(path)
                bad = [r for r in result.records if r.problem()]
                if bad:
                    raise AssertionError(f"unstorable record kept: {bad[0].problem()}")
            except InputFileError:
                pass
            except Exception:  # counting internal errors is the point
                internal += 1
                if internal <= 5:
                    traceback.print_exc()
                    keep = Path(folder).parent / f"fuzz-failure-{internal}-{name}"
                    keep.write_bytes(path.read_bytes())
                    print(f"kept input as {keep}", file=sys.stderr)
            took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
            if took > worst:
                worst, worst_name = took, f"{name} ({path.stat().st_size:,} bytes)"
            worst_cpu = max(worst_cpu, took_cpu)
            slow += took > BUDGET_S
            slow_cpu += took_cpu > BUDGET_S
    # Wall time counts a busy machine's waits; CPU time is what the parse itself cost.
    print(f"inputs tried: {tried}, internal errors: {internal}, over budget ({BUDGET_S}s wall): {slow}, "
          f"({BUDGET_S}s CPU): {slow_cpu}, slowest {worst * 1000:.0f} ms wall ({worst_name}), "
          f"slowest CPU {worst_cpu * 1000:.0f} ms")
    return 1 if internal or slow else 0


if __name__ == "__main__":
    sys.exit(main())
