from django.core.management.commands import makemessages


class Command(makemessages.Command):
    # The rules engine marks its messages with N_() (it cannot import Django).
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]
