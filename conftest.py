"""Settings for every test folder (tests/ and games/tests/)."""

import os

from hypothesis import settings

# On CI, Hypothesis draws the same examples every run, so a submission's result does not
# depend on luck; locally it keeps exploring new ones (and remembers failures in
# .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
