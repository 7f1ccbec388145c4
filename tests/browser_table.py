"""Driving the score sheet in Chromium the way a person at the table does, for the browser tests.

Every write bumps the game's version, which the page shows as ``data-version`` on
``#game``: waiting for the next version is how a test knows htmx has swapped the
answer in, with no sleeps.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Locator, Page, expect

from games import models, selectors, services, virtual_dice
from games.rules import Game as RulesGame
from games.rules import Move, Played, get_ruleset

#: A box of the sheet: (column, row).
Cell = tuple[str, str]

GAME_URL = re.compile(r"/e/([^/]+)/g/(\d+)/")


def store(game: models.Game, shadow: RulesGame, move: Move) -> Played:
    """A turn stored through the services, as a tap stores it, and played on the shadow game:
    the early rounds of a game whose last rounds a test plays in the browser."""
    services.record_turn(game.pk, move, None)
    return shadow.play(move)


def store_rolled(
    game: models.Game, shadow: RulesGame, again: int, box: Callable[[list[int], bool], Cell]
) -> tuple[list[list[int]], list[int]]:
    """A Roll-mode turn through the services: a roll, then ``again`` more holding the most
    common face, as ``Table.roll_again_holding`` taps them; ``box(dice, first_roll)`` picks
    the box. Stored and played on the shadow; the earlier rolls and the last dice."""
    player = shadow.current_player
    assert player is not None
    pending = virtual_dice.roll({}, count=shadow.dice)
    for _ in range(again):
        face, _count = Counter(pending["dice"]).most_common(1)[0]
        pending["held"] = [die == face for die in pending["dice"]]
        pending = virtual_dice.roll(pending, count=shadow.dice)
    services.save_pending(game.pk, pending, None)
    rolls, dice = pending["rolls"], pending["dice"]
    column, row = box(dice, not rolls)
    store(game, shadow, Move(player, row, column, dice=dice, rolls=rolls))
    return rolls, dice


@dataclass
class Table:
    page: Page
    base: str

    # --- setting up -----------------------------------------------------------------------

    def start(
        self,
        names: Sequence[str],
        ruleset: str,
        mode: str = "value",
        starter: int = 1,
        *,
        order: str | None = None,
        columns: int | None = None,
        max_min: bool = True,
        house: dict[str, str] | None = None,
    ) -> models.Game:
        """Fill the start page and tap Start; ``starter`` is the 1-based seat who starts;
        ``order``: the rule set's own ``order`` option (Yam's and Yatzy have a field each);
        ``house``: house rules' radio buttons to pick, field name → value."""
        page = self.page
        page.goto(self.base + "/")
        for seat, name in enumerate(names, start=1):
            page.fill(f"#id_player_{seat}", name)
        page.check(f"input[name=ruleset][value='{ruleset}']")
        if order:
            options = get_ruleset(ruleset).options
            field = next(option.field_name for option in options if option.key == "order")
            page.check(f"input[name={field}][value='{order}']")
        if columns:
            page.check(f"input[name=columns][value='{columns}']")
        # The start form shows the chosen rule set's options only: Max and Min is column
        # Yam's.
        if ruleset == "yams-columns":
            page.locator("input[name=max_min]").set_checked(max_min)
        for name, value in (house or {}).items():
            page.check(f"input[name={name}][value='{value}']")
        page.check(f"input[name=entry_mode][value='{mode}']")
        page.check(f"input[name=starter][value='{starter}']")
        page.locator("button.start-button").click()
        expect(page.locator("#game")).to_be_attached()
        return self.game()

    def game(self) -> models.Game:
        match = GAME_URL.search(self.page.url)
        assert match, self.page.url
        return models.Game.objects.get(evening__token=match[1], number=int(match[2]))

    def engine_totals(self) -> list[int]:
        return selectors.load(self.game()).state.totals()

    # --- waiting for htmx -----------------------------------------------------------------

    @property
    def version(self) -> int:
        return int(self.page.locator("#game").get_attribute("data-version") or -1)

    def write(self, action: Callable[[], Any]) -> None:
        """Do something that stores a change, and wait for the sheet that shows it."""
        version = self.version
        action()
        # Not ``expect``: it looks again only after 100, then 250, then 500 ms, and most
        # answers come sooner; waiting for the selector looks at once and then every few ms.
        self.page.wait_for_selector(f"#game[data-version='{version + 1}']", state="attached")

    # --- the sheet ------------------------------------------------------------------------

    def cell(self, player: int, row: str, column: str) -> Locator:
        return self.page.locator(
            f"td.cell[data-player='{player}'][data-column='{column}'][data-row='{row}']"
        )

    def value_in(self, player: int, row: str, column: str) -> str:
        return self.cell(player, row, column).inner_text().strip()

    def strip_totals(self) -> list[int]:
        spans = self.page.locator("nav.strip .total[data-player]")
        return [int(text) for text in spans.all_inner_texts()]

    def ranking_totals(self) -> dict[int, int]:
        items = self.page.locator(".game-over .ranking li[data-player]")
        return {
            int(item.get_attribute("data-player") or -1): int(item.locator(".total").inner_text())
            for item in items.all()
        }

    def turn_label(self) -> Locator:
        return self.page.locator(".sheet .turn-label")

    # --- entering turns -------------------------------------------------------------------

    def pick(self, player: int, row: str, column: str, choice: str) -> None:
        """Value mode: tap the cell, pick ``v:N``, ``y:N`` or ``x`` (Cross out), Confirm."""
        self.cell(player, row, column).locator("a.tap").click()
        picker = self.page.locator(
            f"form.picker:has(input[name=row][value='{row}'])"
            f":has(input[name=column][value='{column}'])"
        )
        picker.locator(f"input[name=choice][value='{choice}']").check()
        self.write(picker.locator("button.confirm-button").click)

    def enter_dice(self, faces: Sequence[int]) -> None:
        """Dice mode: tap the faces the real dice show."""
        for face in faces:
            self.write(self.page.locator(f"form.faces button[name=face][value='{face}']").click)

    def remove_die(self, slot: int) -> None:
        self.write(self.page.locator(f"form.slots button[name=slot][value='{slot}']").click)

    def previews(self) -> dict[tuple[str, str], int]:
        """(column, row) → would-be score, as the sheet shows it for the current player."""
        found = self.page.eval_on_selector_all(
            "td.cell button.tap.preview",
            """buttons => buttons.map(b => {
                const cell = b.closest("td");
                return [cell.dataset.column, cell.dataset.row, b.textContent.trim()];
            })""",
        )
        return {(column, row): int(value) for column, row, value in found}

    def score_preview(self, player: int, row: str, column: str) -> int:
        """Dice and virtual modes: tap the cell's would-be score; returns what it showed."""
        button = self.cell(player, row, column).locator("button.tap.preview")
        value = int(button.inner_text())
        self.write(button.click)
        return value

    def roll(self) -> list[int]:
        self.write(self.page.locator("button.roll").click)
        return self.shown_dice()

    def hold(self, index: int) -> None:
        die = self.page.locator(f".virtual form.slots button[name=index][value='{index}']")
        self.write(die.click)

    def held(self) -> list[bool]:
        dice = self.page.locator(".virtual form.slots button[name=index]")
        return [
            pressed == "true"
            for pressed in dice.evaluate_all(
                "dice => dice.map(d => d.getAttribute('aria-pressed'))"
            )
        ]

    def hold_only(self, indexes: Sequence[int]) -> None:
        """Tap the dice whose held state must change so that exactly ``indexes`` are held."""
        for index, held in enumerate(self.held()):
            if held != (index in indexes):
                self.hold(index)

    def roll_again_holding(self, times: int) -> tuple[list[list[int]], list[int]]:
        """Roll, then roll again ``times`` times holding the most common face each time (the
        held dice must stay put): the earlier rolls, and the dice of the last."""
        rolls: list[list[int]] = []
        dice = self.roll()
        for _ in range(times):
            face, _count = Counter(dice).most_common(1)[0]
            held = [index for index, die in enumerate(dice) if die == face]
            self.hold_only(held)
            rolls.append(dice)
            dice = self.roll()
            assert [dice[index] for index in held] == [face] * len(held)
        return rolls, dice

    def shown_dice(self) -> list[int]:
        dice = self.page.locator(".dice-entry form.slots button.die")
        return [int(text) for text in dice.all_inner_texts()]

    # --- saved rolls (Maxi Yatzy) ---------------------------------------------------------

    def rolls_choices(self) -> list[int]:
        """Dice and Values modes: the numbers the "Rolls this turn" row offers."""
        buttons = self.page.locator("form.rolls-used button.roll-count")
        return [int(text) for text in buttons.all_inner_texts()]

    def chosen_rolls(self) -> Locator:
        return self.page.locator("form.rolls-used button.roll-count.chosen")

    def say_rolls(self, used: int) -> None:
        """Dice and Values modes: tap the rolls the turn took in "Rolls this turn"."""
        button = self.page.locator(f"form.rolls-used button.roll-count[value='{used}']")
        self.write(button.click)
        expect(self.chosen_rolls()).to_have_text(str(used))

    def saved_rolls(self) -> list[int]:
        """Each player's saved rolls, as the sheet's "Saved rolls" row shows them."""
        cells = self.page.locator(".sheet tr.saved-rolls td")
        return [int(text) for text in cells.all_inner_texts()]

    # --- the Game menu --------------------------------------------------------------------

    def menu(self) -> Locator:
        menu = self.page.locator("details.menu")
        if menu.get_attribute("open") is None:
            menu.locator("summary").click()
        return menu.locator(".menu-items")

    def undo(self) -> None:
        self.write(self.menu().get_by_role("button", name="Undo").click)

    def switch_mode(self, mode: str) -> None:
        self.write(self.page.locator(f"form.modes button[value='{mode}']").click)
        expect(self.page.locator(f"form.modes button[value='{mode}']")).to_have_attribute(
            "aria-pressed", "true"
        )
