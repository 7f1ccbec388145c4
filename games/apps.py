from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # The coach keeps a finished game's figures on ``services.finished``.
        from games import coaching  # noqa: F401
