from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games import models, services
from games.rules.gamefile import GameFileError


class Command(BaseCommand):
    help = "Replay a scorepad.game.v1 file through the rules and store it; prints the new game id."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path of the JSON file, or - for standard input")
        parser.add_argument(
            "--evening",
            help="token of the evening to add the game to; write --evening=TOKEN, "
            "since a token may start with '-'",
        )
        parser.add_argument(
            "--again",
            action="store_true",
            help="import the game even if the evening already holds it, as a new game",
        )

    def handle(self, *args, file: str, evening: str | None = None, again: bool = False, **options):
        if file == "-":
            import sys

            data = sys.stdin.buffer.read()
        else:
            try:
                data = Path(file).read_bytes()
            except OSError as error:
                raise CommandError(f"Cannot read {file}: {error.strerror}.") from None
        target = None
        if evening is not None:
            # No token holds NUL, and PostgreSQL cannot even compare a text with one.
            found = models.Evening.objects.filter(token=evening) if "\x00" not in evening else None
            target = found.first() if found is not None else None
            if target is None:
                raise CommandError(f"No evening with token {evening!r}.")
        try:
            game = services.import_document(data, target, again=again)
        except (GameFileError, services.AlreadyImported) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Imported game {game.number} of evening {game.evening.token}: {game.pk}")
