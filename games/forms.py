"""Forms for what people type: the start of an evening, player names, the players of the
next game, and a game file to import."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import labels
from games.models import Game, Member, Player
from games.params import integer
from games.rules import RULESETS, IllegalMove, Option, RuleSet
from games.rules import Game as RulesGame
from games.rules import names as player_names
from games.rules.ruleset import CLASSIC_HOUSE
from games.sheet import explain

MAX_SEATS = max(rules.max_players for rules in RULESETS.values())


def clean_name(value: str) -> str:
    """An evening's name without the characters a name never holds (controls, bidi
    overrides: games/rules/names.py), which are dropped rather than refused."""
    return "".join(ch for ch in value if player_names.allowed(ch)).strip()


class NewEveningForm(forms.Form):
    evening_name = forms.CharField(label=_("Evening"), max_length=80, required=False)
    ruleset = forms.ChoiceField(
        label=_("Rules"),
        # Called when the form is shown: in the reader's language, every registered rule set.
        choices=lambda: [(key, labels.ruleset_label(key)) for key in RULESETS],
        initial="yahtzee",
        widget=forms.RadioSelect,
    )
    entry_mode = forms.ChoiceField(
        label=_("Scores entered as"),
        choices=Game.EntryMode.choices,
        initial=Game.EntryMode.VALUE,
        widget=forms.RadioSelect,
    )
    starter = forms.CharField(initial="random", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.options = option_fields()
        for name, option in self.options.items():
            self.fields[name] = option_field(option)
        for seat in range(MAX_SEATS):
            # No max_length: clean() words a name too long once, with the real limit,
            # rather than as a field error the page does not show.
            self.fields[f"player_{seat + 1}"] = forms.CharField(
                label=_("Player %(number)d") % {"number": seat + 1},
                required=False,
            )

    def player_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{seat + 1}"] for seat in range(MAX_SEATS)]

    def option_rows(self) -> list[tuple[forms.BoundField, str]]:
        return option_rows(self)

    def clean_evening_name(self) -> str:
        return clean_name(self.cleaned_data.get("evening_name") or "")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        names: list[str] = []
        fields: list[int] = []
        for seat in range(MAX_SEATS):
            try:
                name = player_names.check(data.get(f"player_{seat + 1}") or "")
            except IllegalMove as error:
                raise forms.ValidationError(explain(error)) from None
            if name:
                names.append(name)
                fields.append(seat + 1)
        if not names:
            names = [gettext("Player %(number)d") % {"number": n} for n in (1, 2)]
            fields = [1, 2]
        ruleset = data.get("ruleset")
        if not ruleset:
            return data
        options = chosen_options(RULESETS[ruleset], data)
        starter = data.get("starter") or "random"
        if starter == "random":
            first = random.SystemRandom().randrange(len(names))
        else:
            seat = integer(starter)
            if seat not in fields:
                raise forms.ValidationError(_("The starting player needs a name."))
            first = fields.index(seat)
        try:
            RulesGame.new(ruleset, names, options, first)
        except IllegalMove as error:
            raise forms.ValidationError(explain(error)) from None
        data["names"] = names
        data["options"] = options
        data["first"] = first
        data["drawn"] = starter == "random"
        return data


def option_fields() -> dict[str, Option]:
    """The start form's option fields by name: every option of the registry's rule sets,
    one field for the options of several rule sets that share a field name (the first's)."""
    fields: dict[str, Option] = {}
    for rules in RULESETS.values():
        for option in rules.options:
            fields.setdefault(option.field_name, option)
    return fields


def option_rows(form: NewEveningForm | RulesForm) -> list[tuple[forms.BoundField, str]]:
    """The start form's option fields as it shows them, each with the keys of the rule sets
    that read it ("yam yahtzee"): the page shows only the chosen rule set's (static/css/
    site.css, "only the chosen rule set's options"), and sends them all as before.

    A rule set's own options first, then the house rules in the order of the classic sheet's
    (the upper bonus's threshold and points, the Yahtzee bonus, the Joker, the rolls), so
    that whichever rule set is chosen, its fields read in that order."""
    readers: dict[str, list[str]] = {}
    for rules in RULESETS.values():
        for option in rules.options:
            readers.setdefault(option.field_name, []).append(rules.key)
    house = list(CLASSIC_HOUSE)

    def place(option: Option) -> tuple[bool, int]:
        return option.house, house.index(option.key) if option.key in house else len(house)

    names = sorted(form.options, key=lambda name: place(form.options[name]))
    return [(form[name], " ".join(readers[name])) for name in names]


def chosen_options(rules: RuleSet, data: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``rules`` as a form's cleaned ``data`` holds them (its option fields)."""
    options: dict[str, Any] = {}
    for option in rules.options:
        value = data.get(option.field_name)
        if isinstance(option.default, bool) and not option.choice_labels:
            # An unticked box is not sent: false.
            options[option.key] = bool(value)
        else:
            options[option.key] = option.default if value in (None, "") else value
    return options


def option_field(option: Option) -> forms.Field:
    """The form field of a rule set's option, in the active language: a checkbox for
    true/false, radio buttons for the other choices (numbers coerced back to numbers).

    A true/false option with words for its choices (the house rules' On and Off) is radio
    buttons too: a form sent without it (a script, an older page) keeps the rule set's own
    rule, where an unticked checkbox would turn it off."""
    label = labels.say(option.label) if option.label else option.key
    if option.owner:
        label = f"{label} ({labels.say(option.owner)})"
    booleans = all(isinstance(choice, bool) for choice in option.choices)
    if booleans and not option.choice_labels:
        return forms.BooleanField(label=label, initial=option.default, required=False)
    words = option.choice_labels or tuple(str(choice) for choice in option.choices)
    choices = [(c, labels.say(w)) for c, w in zip(option.choices, words, strict=True)]
    if booleans:
        return forms.TypedChoiceField(
            label=label,
            choices=choices,
            coerce=lambda sent: sent == "True",
            initial=option.default,
            required=False,
            widget=forms.RadioSelect,
        )
    if all(type(choice) is int for choice in option.choices):
        return forms.TypedChoiceField(
            label=label,
            choices=choices,
            coerce=int,
            initial=option.default,
            required=False,
            widget=forms.RadioSelect,
        )
    return forms.ChoiceField(
        label=label,
        choices=choices,
        initial=option.default,
        required=False,
        widget=forms.RadioSelect,
    )


class RenameForm(forms.Form):
    # The length is player_name's to check, in its words and with the real limit.
    name = forms.CharField(label=_("Name"))

    def clean_name(self) -> str:
        return player_name(self.cleaned_data["name"])


def player_name(typed: str) -> str:
    """A typed player's name without the spaces around it; ValidationError if nothing is
    left, it is too long or it holds a character no name holds (games/rules/names.py)."""
    try:
        name = player_names.check(typed)
    except IllegalMove as error:
        raise forms.ValidationError(explain(error)) from None
    if not name:
        raise forms.ValidationError(_("A player needs a name."))
    return name


class RulesForm(forms.Form):
    """The rules of an evening's next game, chosen between games: a rule set of the
    registry and its options, in the start form's option fields. No rule set chosen: the
    last game's rules (``cleaned_data["ruleset"]`` empty)."""

    ruleset = forms.ChoiceField(
        label=_("Rules"),
        choices=lambda: [(key, labels.ruleset_label(key)) for key in RULESETS],
        required=False,
        widget=forms.RadioSelect,
    )

    def __init__(
        self, *args: Any, rules: tuple[str, dict[str, Any]] | None = None, **kwargs: Any
    ) -> None:
        """``rules``: the last game's rule set and options, shown chosen."""
        super().__init__(*args, **kwargs)
        self.options = option_fields()
        for name, option in self.options.items():
            self.fields[name] = option_field(option)
        if rules is not None:
            key, options = rules
            self.fields["ruleset"].initial = key
            for option in RULESETS[key].options:
                if option.key in options:
                    self.fields[option.field_name].initial = options[option.key]

    def option_rows(self) -> list[tuple[forms.BoundField, str]]:
        return option_rows(self)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        ruleset = data.get("ruleset")
        if ruleset:
            try:
                options = RULESETS[ruleset].normalize_options(
                    chosen_options(RULESETS[ruleset], data)
                )
            except IllegalMove as error:
                raise forms.ValidationError(explain(error)) from None
            data["options"] = options
        return data

    def error_lines(self) -> list[str]:
        """Every error in words, a field's after its label ("Rules: …")."""
        return [
            error if name == NON_FIELD_ERRORS else f"{self[name].label}: {error}"
            for name, errors in self.errors.items()
            for error in errors
        ]


class NumberField(forms.IntegerField):
    """A whole number as a page prints it (``games.params.integer``): Django's own field
    also takes other scripts' digits ('٣' is 3), signs and spaces."""

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        number = integer(value)
        if number is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return number


class NextGameForm(RulesForm):
    """Who plays the evening's next game (the evening's players ticked, and a newcomer),
    and its rules."""

    players = forms.TypedMultipleChoiceField(coerce=int, required=False)
    #: The number of the evening's newest game as the page showed it: a game started since
    #: (on another phone) refuses the form rather than start one more after it.
    after = NumberField(
        label=_("Last game shown"), min_value=1, required=False, widget=forms.HiddenInput
    )
    # Not stripped by the field: spaces typed alone are a name left empty, said so, not
    # taken for "no newcomer".
    name = forms.CharField(label=_("Add a player"), required=False, strip=False)

    def __init__(
        self, players: Sequence[Player] | Sequence[Member], *args: Any, **kwargs: Any
    ) -> None:
        """``players``: the evening's, or a group's members for its next evening."""
        super().__init__(*args, **kwargs)
        self.evening_players: list[Player | Member] = list(players)
        self.fields["players"].choices = [(p.pk, p.name) for p in self.evening_players]

    def clean_name(self) -> str:
        typed = self.cleaned_data.get("name") or ""
        if not typed:
            return ""
        cleaned = player_name(typed)
        for player in self.evening_players:
            if player.name.casefold() == cleaned.casefold():
                raise forms.ValidationError(
                    _("%(name)s is already on the list: tick their box.") % {"name": player.name}
                )
        return cleaned

    def seen(self) -> int | None:
        """The number the page sent (``after``); None for a form without it (a script's, a
        page from before it) or with nonsense, which validating the form then words."""
        try:
            return self.fields["after"].clean(self["after"].data)
        except forms.ValidationError:
            return None

    def ticks(self) -> list[tuple[Player | Member, bool]]:
        """Each player of the list and whether their box is ticked (as sent, or as set up)."""
        ticked = {str(value) for value in self["players"].value() or []}
        return [(player, str(player.pk) in ticked) for player in self.evening_players]


#: The biggest game file the site writes (8 players of 40-character names, 4 columns, every
#: turn with its three rolls) is about 190 KB: tests/test_import_upload.py imports it.
IMPORT_MAX_BYTES = 256 * 1024


class ImportForm(forms.Form):
    file = forms.FileField(label=_("Game file"))
    #: A file the evening already holds is refused unless this is ticked.
    again = forms.BooleanField(required=False, label=_("Import it again as a new game"))

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        # The size the upload handler counted: a file too big is refused unread.
        if upload.size > IMPORT_MAX_BYTES:
            raise forms.ValidationError(
                _("This file is %(size)s: a game file has at most %(max)s.")
                % {"size": filesizeformat(upload.size), "max": filesizeformat(IMPORT_MAX_BYTES)}
            )
        return upload
