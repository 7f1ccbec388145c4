from django.urls import path

from games.views import (
    app,
    board,
    evening,
    group,
    live,
    review,
    rules,
    sheet,
    spreadsheet,
    standings,
    stats,
    table,
)

game = "e/<str:token>/g/<int:number>/"
# Spectator pages: read only, and no write URL takes a spectator token. They are the
# players' page views: with_access (games/views/access.py) opens a read-only Access for a
# view_token, an editing one for a token.
watch = "s/<str:view_token>/"
watched_game = watch + "g/<int:number>/"

urlpatterns = [
    path("", table.home, name="home"),
    path("healthz", table.healthz, name="healthz"),
    # The installed app: served from the root, so the worker's scope is the whole site.
    path("manifest.webmanifest", app.manifest, name="manifest"),
    path("sw.js", app.service_worker, name="service_worker"),
    path("offline", app.offline, name="offline"),
    path("new", table.new_evening, name="new_evening"),
    path("import", table.import_evening, name="import_evening"),
    path("e/<str:token>/", evening.evening, name="evening"),
    path(game, sheet.sheet, name="sheet"),
    path(game + "pick", table.pick, name="pick"),
    path(game + "score", table.score, name="score"),
    path(game + "undo", table.undo, name="undo"),
    path(game + "reset", table.reset, name="reset"),
    path(game + "mode", table.entry_mode, name="entry_mode"),
    path(game + "die", table.die, name="die"),
    path(game + "turn-rolls", table.turn_rolls, name="turn_rolls"),
    path(game + "roll", table.roll, name="roll"),
    path(game + "hold", table.hold, name="hold"),
    path(game + "restart-turn", table.restart_turn, name="restart_turn"),
    path(game + "again", table.play_again, name="play_again"),
    path(game + "correct", table.correct, name="correct"),
    path(game + "players", table.players, name="players"),
    # Evenings across phones: sharing, live polling, leaderboard, review, stats.
    path("e/<str:token>/games", evening.evening_games, name="evening_games"),
    path("e/<str:token>/next", evening.next_game, name="next_game"),
    path("e/<str:token>/import", evening.import_game, name="import_game"),
    path("e/<str:token>/games.csv", spreadsheet.evening_csv, name="evening_csv"),
    path("e/<str:token>/tally.csv", spreadsheet.tally_csv, name="tally_csv"),
    path("e/<str:token>/board", board.board, name="board"),
    path("e/<str:token>/board/poll", board.board_poll, name="board_poll"),
    path("e/<str:token>/board/events", live.board_events, name="board_events"),
    path(game + "poll", sheet.poll, name="poll"),
    path(game + "events", live.events, name="events"),
    path(game + "review", review.review, name="review"),
    path(game + "export.json", review.export, name="export"),
    path(watch, evening.evening, name="watch_evening"),
    path(watch + "games", evening.evening_games, name="watch_evening_games"),
    path(watch + "games.csv", spreadsheet.evening_csv, name="watch_evening_csv"),
    path(watch + "tally.csv", spreadsheet.tally_csv, name="watch_tally_csv"),
    path(watch + "board", board.board, name="watch_board"),
    path(watch + "board/poll", board.board_poll, name="watch_board_poll"),
    path(watch + "board/events", live.board_events, name="watch_board_events"),
    path(watched_game, sheet.sheet, name="watch_sheet"),
    path(watched_game + "poll", sheet.poll, name="watch_poll"),
    path(watched_game + "events", live.events, name="watch_events"),
    path(watched_game + "review", review.review, name="watch_review"),
    path(watched_game + "export.json", review.export, name="watch_export"),
    # Groups: an edit link that writes (g/), a view link that only reads (gs/); the writes
    # take the edit token only (games/views/group.py).
    path("groups/new", group.new_group, name="new_group"),
    path("g/<str:token>/", group.group, name="group"),
    path("gs/<str:view_token>/", group.group, name="watch_group"),
    path("g/<str:token>/rename", group.rename, name="group_rename"),
    path("g/<str:token>/members/add", group.add_member, name="group_add_member"),
    path("g/<str:token>/members/rename", group.rename_member, name="group_rename_member"),
    path("g/<str:token>/members/merge", group.merge_members, name="group_merge_members"),
    path("g/<str:token>/next", group.next_evening, name="group_next_evening"),
    path("g/<str:token>/import", group.import_game, name="group_import"),
    path("g/<str:token>/games.csv", spreadsheet.group_games_csv, name="group_games_csv"),
    path(
        "gs/<str:view_token>/games.csv", spreadsheet.group_games_csv, name="watch_group_games_csv"
    ),
    path(
        "g/<str:token>/standings.csv", spreadsheet.group_standings_csv, name="group_standings_csv"
    ),
    path(
        "gs/<str:view_token>/standings.csv",
        spreadsheet.group_standings_csv,
        name="watch_group_standings_csv",
    ),
    path("g/<str:token>/games.zip", group.game_files, name="group_files"),
    path("gs/<str:view_token>/games.zip", group.game_files, name="watch_group_files"),
    path("e/<str:token>/group", group.join_group, name="evening_join_group"),
    path("e/<str:token>/ungroup", group.leave_group, name="evening_leave_group"),
    # A group's statistics, live (its page includes them: games/views/standings.py).
    path("g/<str:token>/poll", standings.group_poll, name="group_poll"),
    path("g/<str:token>/events", live.group_events, name="group_events"),
    path("gs/<str:view_token>/poll", standings.group_poll, name="watch_group_poll"),
    path("gs/<str:view_token>/events", live.group_events, name="watch_group_events"),
    path("evenings", stats.history, name="history"),
    # The name in the query (links are made so); the path form answers older bookmarks.
    path("players", stats.player_stats, name="player_stats"),
    path("players/<path:name>", stats.player_stats, name="player_stats_at"),
    path("rules/", rules.index, name="rules"),
    path("rules/<str:ruleset>/", rules.ruleset_rules, name="rules_ruleset"),
]
