from django.urls import path

from games import views, views_evening

game = "e/<str:token>/g/<int:number>/"
# Spectator pages: read only, and no write URL takes a spectator token.
watch = "s/<str:view_token>/"
watched_game = watch + "g/<int:number>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("new", views.new_evening, name="new_evening"),
    path("e/<str:token>/", views.evening, name="evening"),
    path(game, views.sheet, name="sheet"),
    path(game + "pick", views.pick, name="pick"),
    path(game + "score", views.score, name="score"),
    path(game + "undo", views.undo, name="undo"),
    path(game + "reset", views.reset, name="reset"),
    path(game + "mode", views.entry_mode, name="entry_mode"),
    path(game + "die", views.die, name="die"),
    path(game + "roll", views.roll, name="roll"),
    path(game + "hold", views.hold, name="hold"),
    path(game + "restart-turn", views.restart_turn, name="restart_turn"),
    path(game + "again", views.play_again, name="play_again"),
    path(game + "players", views.players, name="players"),
    # Evenings across phones (views_evening): live polling, leaderboard, review, stats.
    path("e/<str:token>/games", views_evening.evening_games, name="evening_games"),
    path("e/<str:token>/board", views_evening.board, name="board"),
    path("e/<str:token>/board/poll", views_evening.board_poll, name="board_poll"),
    path(game + "poll", views_evening.poll, name="poll"),
    path(game + "review", views_evening.review, name="review"),
    path(game + "export.json", views_evening.export, name="export"),
    path(watch, views_evening.watch_evening, name="watch_evening"),
    path(watch + "games", views_evening.watch_evening_games, name="watch_evening_games"),
    path(watch + "board", views_evening.watch_board, name="watch_board"),
    path(watch + "board/poll", views_evening.watch_board_poll, name="watch_board_poll"),
    path(watched_game, views_evening.watch_sheet, name="watch_sheet"),
    path(watched_game + "poll", views_evening.watch_poll, name="watch_poll"),
    path(watched_game + "review", views_evening.watch_review, name="watch_review"),
    path(watched_game + "export.json", views_evening.watch_export, name="watch_export"),
    path("evenings", views_evening.history, name="history"),
    path("players/<path:name>", views_evening.player_stats, name="player_stats"),
]
