from django.contrib import admin
from django.http import HttpRequest

from games.models import Entry, Evening, Game, Player, Seat


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0


class GameInline(admin.TabularInline):
    model = Game
    extra = 0
    fields = ["number", "ruleset", "entry_mode", "version"]
    readonly_fields = ["version"]
    show_change_link = True


@admin.register(Evening)
class EveningAdmin(admin.ModelAdmin):
    list_display = ["__str__", "name", "created_at", "updated_at"]
    search_fields = ["name", "players__name"]
    readonly_fields = ["token", "view_token", "created_at", "updated_at"]
    inlines = [PlayerInline, GameInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "evening"]
    search_fields = ["name"]
    list_select_related = ["evening"]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


class EntryInline(admin.TabularInline):
    """Read only: a game's entries are written by its pages, with the snapshot and the
    result they move (an entry changed here would leave both behind)."""

    model = Entry
    extra = 0
    fields = ["turn", "player", "column", "row", "value", "crossed", "yahtzee_bonus"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "evening",
        "number",
        "ruleset",
        "entry_mode",
        "version",
        "updated_at",
    ]
    list_filter = ["ruleset", "entry_mode"]
    list_select_related = ["evening"]
    readonly_fields = ["created_at", "updated_at", "result", "snapshot"]
    inlines = [SeatInline, EntryInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["game", "position", "player"]
    list_select_related = ["game", "player"]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    """Read only, as ``EntryInline`` (deleting stays allowed: deleting a game or an evening
    deletes its entries, and the admin asks this permission for them)."""

    list_display = ["game", "turn", "player", "column", "row", "value", "crossed"]
    list_filter = ["crossed", "yahtzee_bonus", "game__ruleset"]
    list_select_related = ["game", "player"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Entry | None = None) -> bool:
        return False
