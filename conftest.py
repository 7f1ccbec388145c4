"""Settings for every test folder (tests/ and games/tests/)."""

import os

from hypothesis import settings

# Two budgets for the properties. `make test` runs the default one, so that the whole suite
# takes minutes; `make test-deep` (HYPOTHESIS_PROFILE=deep) runs each property with the
# examples it had before that cut, or more: the long hunt, once per change that matters. A
# property with a budget of its own (the HTTP fuzz, the phones' state machine...) gives a
# figure for each through games/tests/budget.py.
settings.register_profile("default", max_examples=50)
settings.register_profile("deep", max_examples=200)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")

# On CI, Hypothesis draws the same examples every run, so a submission's result does not
# depend on luck; locally it keeps exploring new ones (and remembers failures in
# .hypothesis/).
if os.environ.get("CI"):
    settings.register_profile(
        f"{PROFILE}-ci", settings.get_profile(PROFILE), derandomize=True, print_blob=True
    )
    settings.load_profile(f"{PROFILE}-ci")
else:
    settings.load_profile(PROFILE)
