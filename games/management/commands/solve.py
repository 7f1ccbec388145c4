import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection

from games import coaching, models
from games.coach import (
    Config,
    Tables,
    Unsupported,
    all_configs,
    distribution,
    expected_score,
    several_column_configs,
)
from games.coach.advice import advisor_for, calibrate
from games.rules import IllegalMove


def _value(text: str):
    """An option's value as the game file writes it: true/false, a number, or a word."""
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.isdigit() else text


class Command(BaseCommand):
    help = (
        "Build (or load) the coach's table of optimal solitaire play for a rule set and print "
        "the expected final score; --column names one column of a several-column sheet; --all "
        "builds every one-column configuration and the single columns of the others; "
        "--distribution also simulates the final scores of that play (how rare a score is)."
    )

    def add_arguments(self, parser):
        parser.add_argument("ruleset", nargs="?")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a game option (order=free, columns=1, max_min=false) or a house rule "
            "(upper_bonus_at=60, upper_bonus=50, yahtzee_bonus=false, joker=false, rolls=4)",
        )
        parser.add_argument(
            "--column",
            metavar="COLUMN",
            help="one column of a several-column sheet, solved alone (down, free, up, dry)",
        )
        parser.add_argument(
            "--all",
            action="store_true",
            help="every one-column configuration and the single columns of the others",
        )
        parser.add_argument(
            "--distribution",
            action="store_true",
            help=f"the final scores of optimal play too, simulated from "
            f"{distribution.GAMES:,} games (built once, kept beside the table); the last line "
            "then gives their mean, standard deviation and percentiles",
        )

    def handle(
        self, *args, ruleset=None, option=(), column=None, all=False, distribution=False, **kwargs
    ):
        tables = Tables(settings.COACH_TABLES_DIR)
        if all:
            if ruleset or option or column or distribution:
                raise CommandError("--all takes no rule set, option, column or --distribution.")
            configs = all_configs()
        else:
            if not ruleset:
                raise CommandError("Name a rule set, or give --all.")
            options = {}
            for item in option:
                key, sep, text = item.partition("=")
                if not sep:
                    raise CommandError(f"--option takes KEY=VALUE, not {item!r}.")
                options[key] = _value(text)
            try:
                configs = [Config.of(ruleset, options, column=column)]
            except (IllegalMove, Unsupported) as error:
                raise CommandError(str(error)) from None
            if distribution and configs[0].column is not None:
                # A column played alone is no game's final score: nothing to place a score in.
                raise CommandError(
                    "--distribution is for a one-column sheet's final scores, not a column's."
                )
        score = None
        summary = None
        for config in configs:
            begun = time.monotonic()
            try:
                table, built = tables.get(config, self._progress(config.name))
            except Unsupported as error:  # a column or rows the sheet does not have
                raise CommandError(str(error)) from None
            score = expected_score(table)
            how = f"built in {time.monotonic() - begun:.1f} s" if built else "loaded"
            self.stdout.write(f"{config.name}: {how}, {tables.path(config)}")
            if all:
                self.stdout.write(f"{config.name}: {score:.4f}")
            if (all and config.column is None) or distribution:
                summary = self._distribution(tables, config)
        if all:
            self._calibrate(tables)
        # Games that ended before their table was built get their figures now (the
        # leaderboard only reads them).
        self._analyse_stored_games()
        if distribution and summary is not None:
            # The last line: the final scores' figures, name value pairs.
            self.stdout.write(summary)
        elif not all and score is not None:
            # The last line: the expected final score of optimal solitaire play.
            self.stdout.write(f"{score:.4f}")

    def _distribution(self, tables, config):
        """Build (or load) the final scores of the table's policy; its figures' line."""
        begun = time.monotonic()
        try:
            found, built = distribution.get(tables, config)
        except OSError as error:
            raise CommandError(f"{config.name}: the distribution was not kept: {error}") from None
        how = (
            f"{found.method} from {found.games:,} games (seed {found.seed}) "
            f"in {time.monotonic() - begun:.1f} s"
            if built
            else "loaded"
        )
        self.stdout.write(f"{config.name}: distribution {how}, {distribution.path(tables, config)}")
        return found.line()

    def _analyse_stored_games(self):
        """The coach's figures of the finished games that have none. On a database without
        its tables yet (a fresh clone, before ``migrate``) or one that cannot be read, one
        line and on: the tables just built are kept all the same."""
        try:
            if models.Game._meta.db_table not in connection.introspection.table_names():
                self.stdout.write(
                    "Stored games not analysed: the database has no tables yet "
                    "(python manage.py migrate creates them; the next solve analyses them)."
                )
                return
            analysed = coaching.keep_all_finished()
        except DatabaseError as error:  # OperationalError, ProgrammingError
            said = str(error).strip().splitlines()
            self.stdout.write(
                "Stored games not analysed: the database could not be read "
                f"({said[0] if said else type(error).__name__})."
            )
            return
        if analysed:
            self.stdout.write(f"{analysed} finished game(s) analysed by the coach")

    def _calibrate(self, tables):
        """The several-column policies' figures, simulated here and kept beside the tables:
        a page never simulates them (games.coach.advice; without them the coach is not
        available for those sheets)."""
        for config in several_column_configs():
            begun = time.monotonic()
            try:
                simulated = calibrate(config, tables)
            except OSError as error:
                raise CommandError(
                    f"{config.name}: the calibration was not kept: {error}"
                ) from None
            coach = advisor_for(config, tables)
            how = f"calibrated in {time.monotonic() - begun:.1f} s" if simulated else "loaded"
            self.stdout.write(f"{config.name}: policy {how}, estimate {coach.expected({}):.4f}")

    def _progress(self, name):
        # The bar redraws itself in place (a carriage return), plainly: not in error red.
        self.stderr.style_func = None

        def show(done, total, seconds):
            width = 30
            filled = width * done // total
            bar = "#" * filled + "." * (width - filled)
            end = "\n" if done == total else ""
            self.stderr.write(f"\r{name} [{bar}] {done}/{total} {seconds:.0f} s{end}", ending="")
            self.stderr.flush()

        return show
