from django.urls import path

from games import views

game = "e/<str:token>/g/<int:number>/"

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
]
