"""How many examples a property draws: a figure for `make test`, another for `make test-deep`.

The root conftest.py loads the Hypothesis profile HYPOTHESIS_PROFILE names ("default" unless
told, "deep" for the long hunt) before any test module is imported.
"""

from hypothesis import settings


def deep() -> bool:
    """Whether the deep profile (or its CI variant, "deep-ci") is loaded."""
    return settings.get_current_profile_name().split("-")[0] == "deep"


def examples(default: int, deep_budget: int) -> int:
    """``default`` examples in `make test`, ``deep_budget`` in `make test-deep`."""
    return deep_budget if deep() else default
