"""`/model <term>`: an exact model switches at once, anything else opens the filtered picker."""

from __future__ import annotations

from pathlib import Path

from tests.tui.helpers import make_app, type_text, wait_for


async def test_model_with_an_exact_term_switches_directly_else_opens_the_filtered_picker(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        model = app.engine.models.model
        await type_text(pilot, f"/model {model.provider}/{model.id}")
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.screen_stack) == 1  # no picker: switched at once
        assert app.engine.models.model.id == model.id
        await type_text(pilot, "/model scri")
        await pilot.press("enter")
        await wait_for(lambda: len(app.screen_stack) == 2, pilot)
        assert type(app.screen).__name__ == "ModelPickerScreen"

