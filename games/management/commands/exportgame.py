from django.core.management.base import BaseCommand, CommandError

from games import models, selectors


class Command(BaseCommand):
    help = "Print a game as a scorepad.game.v1 JSON document."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, *args, game_id: int, **options):
        try:
            game = models.Game.objects.get(pk=game_id)
        except models.Game.DoesNotExist:
            raise CommandError(f"No game with id {game_id}.") from None
        self.stdout.write(selectors.export_document(game), ending="")
