"""Settings for every test folder (tests/ and games/tests/)."""

import os

from hypothesis import settings

# Two budgets of examples for the properties that leave theirs to the profile: "default" (what
# `make test` runs, a quarter of the deep budget: quick enough for every change) and "deep"
# (`make test-deep`, HYPOTHESIS_PROFILE=deep: the budgets the suite ran before the default was
# cut). `make mutants` holds the default to the deep one: it kills as many of the rules
# engine's mutants.
settings.register_profile("default", max_examples=50)
settings.register_profile("deep", max_examples=200)
profile = os.environ.get("HYPOTHESIS_PROFILE", "default")

# On CI, Hypothesis draws the same examples every run, so a submission's result does not
# depend on luck; locally it keeps exploring new ones (and remembers failures in
# .hypothesis/).
if os.environ.get("CI"):
    settings.register_profile(
        f"{profile}-ci", settings.get_profile(profile), derandomize=True, print_blob=True
    )
    profile = f"{profile}-ci"
settings.load_profile(profile)
