"""Which of the user's choices the framework in use cannot take, and the choices without them.

Why: the framework decides which options apply (resources/catalog.toml `frameworks.<id>.options`,
from where each framework reads its settings: docs/cann/frameworks.md). A choice made for one
framework and kept after switching to another is refused by the export (check_choices, exit 1):
a TensorFlow `static_memory_policy` has no place in torch_npu's settings. The wizard offers to
drop such choices when the framework changes, listing them; this module says which they are,
the same for every caller.
"""

from __future__ import annotations

from cann_config.app.catalog import Catalog
from cann_config.app.profile import Profile


def choices_not_taken(profile: Profile, catalog: Catalog) -> tuple[str, ...]:
    """The options chosen in `profile` that its framework cannot take, in catalog order."""
    framework = catalog.frameworks.get(profile.framework)
    if framework is None:
        return ()
    return tuple(oid for oid in catalog.options if oid in profile.options and oid not in framework.options)


def without_choices(profile: Profile, option_ids: tuple[str, ...] | list[str]) -> Profile:
    """`profile` without the choices `option_ids` (each then has its default again)."""
    for oid in option_ids:
        profile = profile.without_value(oid)
    return profile
