"""The documentation of the game options is the code's own: a stale page fails here."""

from controller.docs import PATH, options_markdown


def test_options_page_matches_the_code() -> None:
    assert PATH.read_text(encoding="utf-8") == options_markdown(), (
        "docs/options.md is stale: run `python -m controller.docs`")


def test_every_option_is_documented() -> None:
    import dataclasses

    from rules import GAMES

    for game in GAMES.values():
        for f in dataclasses.fields(game.Options):
            assert f.metadata.get("doc"), f"{game.name} option {f.name} has no documentation"
