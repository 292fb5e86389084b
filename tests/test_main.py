"""reader.__main__: no command, `reader FILE...` or --smoke-test open the window; a command runs the CLI."""

from __future__ import annotations

import pytest

from reader import __main__ as entry
from reader.cli import GuiRequest


def test_gui_or_cli_is_decided_before_the_cli_runs(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from reader.cli import gui_request, run

    assert gui_request(["list"]) is None
    smoke = gui_request(["--smoke-test"])
    assert smoke is not None and smoke.smoke_test
    dropped = tmp_path / "papers.bib"
    dropped.write_text("", encoding="utf-8")
    opened = gui_request(["--data-dir", str(tmp_path / "lib"), str(dropped)])  # `reader FILE`: the window
    assert opened is not None and opened.open_paths == [str(dropped.resolve())] and not opened.smoke_test
    with pytest.raises(SystemExit) as exit_:
        run([])
    assert exit_.value.code == 2
    assert "no command given" in capsys.readouterr().err


def test_main_starts_the_window_or_the_cli(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import reader.cli
    import reader.ui.app

    calls: list[tuple] = []
    monkeypatch.setattr(reader.ui.app, "run", lambda data_dir, import_paths=None: calls.append(("gui", import_paths)) or 0)
    monkeypatch.setattr(reader.cli, "run", lambda argv: calls.append(("cli", list(argv))) or 0)
    assert entry.main(["--data-dir", str(tmp_path / "lib")]) == 0
    assert entry.main(["--data-dir", str(tmp_path / "lib"), "stats"]) == 0
    assert calls == [("gui", None), ("cli", ["--data-dir", str(tmp_path / "lib"), "stats"])]
    assert isinstance(reader.cli.gui_request([]), GuiRequest)
