from django.core.management.commands import makemessages


class Command(makemessages.Command):
    # The rules engine marks its messages with N_(), C_(context, message) and
    # P_(singular, plural) (games/rules/words.py: it cannot import Django).
    xgettext_options = [
        *makemessages.Command.xgettext_options,
        "--keyword=N_",
        "--keyword=C_:1c,2",
        "--keyword=P_:1,2",
    ]
