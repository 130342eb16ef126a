"""Loading extensions: the bundled ones in a fixed order, third parties from entry points.

Bundled extensions register as ``probability.<name>`` when the session needs them (one of
their settings is given, or a bench file is collected: the kernel decides, from the catalog
``bundled.json``); ``-p no:probability.<name>`` blocks one. An extension's hook
specifications are added when it registers or when a plugin implementing one of its hooks
registers (blocked or not), so a third-party implementation of a disabled extension's hook
never aborts pytest. Third-party extensions come from the
``pytest_probability.extensions`` entry-point group (not ``pytest11``: with
``-p no:probability`` they must not load) and honour ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import importlib
import json
import os
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .options import OptionRegistry

ENTRY_POINT_GROUP = "pytest_probability.extensions"
PREFIX = "probability."

#: Bundled extensions, in registration order: (name, package).
BUNDLED: tuple[tuple[str, str], ...] = (
    ("fractions", "pytest_probability.extensions.fractions"),
    ("intervals", "pytest_probability.extensions.intervals"),
    ("cost", "pytest_probability.extensions.cost"),
    ("gates", "pytest_probability.extensions.gates"),
    ("latency", "pytest_probability.extensions.latency"),
    ("comparisons", "pytest_probability.extensions.comparisons"),
    ("metrics", "pytest_probability.extensions.metrics"),
    ("stopping", "pytest_probability.extensions.stopping"),
    ("plan", "pytest_probability.extensions.plan"),
    ("texts", "pytest_probability.extensions.texts"),
    ("budget", "pytest_probability.extensions.budget"),
    ("explain", "pytest_probability.extensions.explain"),
    ("html", "pytest_probability.extensions.html"),
    ("markdown", "pytest_probability.extensions.markdown"),
    ("history", "pytest_probability.extensions.history"),
    ("failures", "pytest_probability.extensions.failures"),
)
#: Plugin names of the bundled extensions.
BUNDLED_NAMES = frozenset(PREFIX + name for name, _ in BUNDLED)


def implemented_outside(hook: Any) -> bool:
    """Whether a plugin other than the bundled extensions implements ``hook`` (an installed
    extension, a conftest): a registry filled through it is then filled at
    ``pytest_configure``, so that its failures stop the session before anything runs."""
    return any(impl.plugin_name not in BUNDLED_NAMES for impl in hook.get_hookimpls())


#: ``bundled.json``, the catalog of the bundled extensions (:mod:`pytest_probability.catalog`)
CATALOG_PATH = Path(__file__).with_name("bundled.json")


@functools.cache
def catalog() -> tuple[dict[str, Any], ...]:
    """The bundled extensions as the catalog describes them, in registration order (read
    once per process: it is the same for every session)."""
    return tuple(json.loads(CATALOG_PATH.read_text(encoding="utf-8"))["extensions"])


@functools.cache
def hook_owners() -> dict[str, str]:
    """Which bundled extension declares each of the bundled extensions' hooks."""
    return {hook: entry["name"] for entry in catalog() for hook in entry["hooks"]}


def providers(name: str) -> list[str]:
    """The other bundled extensions, in registration order, that register entries into a
    registry of the bundled extension ``name`` (``stopping`` adds the ``seq`` method to
    the ``intervals`` extension's methods): a value of its settings may name their entries."""
    declared = set(next(entry["hooks"] for entry in catalog() if entry["name"] == name))
    return [
        entry["name"]
        for entry in catalog()
        if entry["name"] != name and declared.intersection(entry["registers"])
    ]


#: The settings that ask for every bundled extension as soon as they are given: the JSON
#: report holds every extension's part, and the plan every extension's view of each case
#: (the costs of ``--prob-plan-report`` come from the ``comparisons`` extension, read at
#: configuration).
WHOLE_SESSION_SETTINGS = ("json", "plan")


def decoded_default(value: Any) -> Any:
    """A default from the catalog (``{"tuple": [...]}`` is a tuple)."""
    if isinstance(value, dict):
        return tuple(decoded_default(part) for part in value["tuple"])
    return value


def declare_options(options: OptionRegistry, pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare the settings of every bundled extension not blocked with ``-p no:`` from the
    catalog (placeholders its own declaration replaces when it registers), in registration
    order: their flags and ini keys are known to pytest's parser from start-up."""
    for entry in catalog():
        if pluginmanager.is_blocked(PREFIX + entry["name"]):
            continue
        for option in entry["options"]:
            fields = dict(option)
            if fields["choices"] is not None:
                fields["choices"] = tuple(fields["choices"])
            fields["default"] = decoded_default(fields["default"])
            options._placeholder(extension=entry["name"], **fields)


def add_hookspecs(pluginmanager: pytest.PytestPluginManager, name: str) -> None:
    """Add the ``hookspecs`` module of the bundled extension ``name`` (blocked or not) unless
    they are added already."""
    entry = next(entry for entry in catalog() if entry["name"] == name)
    caller = getattr(pluginmanager.hook, entry["hooks"][0], None)
    if caller is None or not caller.has_spec():
        pluginmanager.add_hookspecs(importlib.import_module(f"{entry['package']}.hookspecs"))


def register_bundled(
    pluginmanager: pytest.PytestPluginManager, name: str, options: OptionRegistry | None = None
) -> bool:
    """Register the bundled extension ``name`` (its hookspecs first) as ``probability.NAME``
    unless ``-p no:`` blocked it; returns whether it is registered now.

    After ``pytest_configure`` (``options``, the session's registry, is resolved), pluggy
    would call the extension's historic ``pytest_configure`` as it adds that hook, before
    its other hooks (it adds them in name order): a registry its ``pytest_configure`` fills
    would miss the extension's own entries, or list them last. So the module registers
    without its ``pytest_configure``, which is then called as pytest would have, once its
    settings are resolved (a bad value is a usage error naming the option).
    """
    plugin_name = PREFIX + name
    if pluginmanager.is_blocked(plugin_name):
        return False
    if pluginmanager.get_plugin(plugin_name) is not None:
        return True
    add_hookspecs(pluginmanager, name)
    package = next(entry["package"] for entry in catalog() if entry["name"] == name)
    plugin = importlib.import_module(f"{package}.plugin")
    if pluginmanager.is_registered(plugin):
        return True  # (registered under its module name with -p)
    owners = hook_owners()  # the specs of the other extensions' hooks it implements, first
    for other in sorted({owners[hook] for hook in vars(plugin) if hook in owners}):
        add_hookspecs(pluginmanager, other)
    # (the loader and the option registry are the kernel's: it reads the registry's state)
    config = options._config if options is not None and options._resolved else None
    configure = None if config is None else vars(plugin).pop("pytest_configure", None)
    try:
        pluginmanager.register(plugin, plugin_name)
    finally:
        if configure is not None:
            vars(plugin)["pytest_configure"] = configure
    if config is not None:
        options._resolve_late()
        if configure is not None:
            configure(config=config)
    return True


def has_registry_filler(name: str) -> bool:
    """Whether the bundled extension ``name`` fills its registry without its plugin (the
    catalog's ``fill``: a function of its package taking the config)."""
    return _entry(name).get("fill") is not None


def fill_registry(config: pytest.Config, name: str) -> None:
    """Fill the registry of the bundled extension ``name`` through its registry filler,
    which imports only the registry's modules (a broken registration is a usage error)."""
    module, function = _entry(name)["fill"].split(":")
    getattr(importlib.import_module(module), function)(config)


def _entry(name: str) -> dict[str, Any]:
    return next(entry for entry in catalog() if entry["name"] == name)


def register_all(
    pluginmanager: pytest.PytestPluginManager, options: OptionRegistry | None = None
) -> None:
    """Register every bundled extension not blocked, in ``BUNDLED`` order, after adding the
    hookspecs of all of them (a disabled one's hooks may still be implemented or called)."""
    for name, _ in BUNDLED:
        add_hookspecs(pluginmanager, name)
    for name, _ in BUNDLED:
        register_bundled(pluginmanager, name, options)


def is_bundled(plugin_name: str | None) -> bool:
    """Whether a plugin name is a bundled extension's, the kernel's or one they register
    (``probability.gates.items``)."""
    if not plugin_name or not plugin_name.startswith(PREFIX):
        return False
    first = plugin_name[len(PREFIX) :].split(".", 1)[0]
    return first in KERNEL_NAMES or PREFIX + first in BUNDLED_NAMES


#: The prefix of the hooks that fill an extension's registry (``pytest_prob_register_gates``)
REGISTRATION_PREFIX = "pytest_prob_register_"


def implemented_extensions(
    pluginmanager: pytest.PytestPluginManager, plugin: object
) -> tuple[list[str], set[str]]:
    """The bundled extensions (in registration order) declaring a hook ``plugin``
    implements, and those of them whose registry it fills (a ``pytest_prob_register_*``
    hook)."""
    if getattr(plugin, "__name__", "").startswith("_pytest."):
        return [], set()  # (pytest's own plugins: a third of every session's registrations)
    owners = hook_owners()
    found, registries = set(), set()
    for caller in pluginmanager.get_hookcallers(plugin) or ():
        if caller.name in owners:
            found.add(owners[caller.name])
            if caller.name.startswith(REGISTRATION_PREFIX):
                registries.add(owners[caller.name])
    return [name for name, _ in BUNDLED if name in found], registries


def register_third_party(pluginmanager: pytest.PytestPluginManager) -> None:
    """Load and register every installed third-party extension.

    Raises :class:`pytest.UsageError` (exit 4, no traceback) naming the extension and the
    ``-p no:`` flag that disables it when one cannot be used: its import or registration
    raises (also ``SystemExit`` and ``KeyboardInterrupt``), its entry-point name is taken by
    a bundled extension or the kernel, or it implements a ``pytest_prob_*`` hook that
    nothing declares (checked once every extension is loaded, since one may declare hooks
    another implements). Without this, pytest would end every session of the environment
    with an INTERNALERROR.
    """
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return
    loaded: list[tuple[importlib_metadata.EntryPoint, object]] = []
    for entry_point in extension_entry_points():
        plugin_name = PREFIX + entry_point.name
        if pluginmanager.is_blocked(plugin_name):
            continue
        existing = pluginmanager.get_plugin(plugin_name)
        if existing is not None and getattr(existing, "__name__", None) == entry_point.module:
            continue  # this very extension, registered already
        if reserved(entry_point.name) or existing is not None:
            raise pytest.UsageError(
                f"{_described(entry_point)} has the name of a pytest-probability "
                f"{'bundled extension' if reserved(entry_point.name) else 'loaded extension'} "
                f"({plugin_name}). Rename its entry point or uninstall it; -p no:{plugin_name} "
                "disables both."
            )
        try:
            plugin = entry_point.load()
            pluginmanager.register(plugin, plugin_name)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            raise pytest.UsageError(
                f"{_described(entry_point)} failed to load: {_reason(exc)}. Fix or uninstall "
                f"it, or run pytest with -p no:{plugin_name} to disable it."
            ) from None
        loaded.append((entry_point, plugin))
    for entry_point, plugin in loaded:
        unknown = undeclared_hooks(pluginmanager, plugin)
        if unknown:
            raise pytest.UsageError(
                f"{_described(entry_point)} implements {', '.join(unknown)}, which no "
                "installed extension declares (a misspelt hook, an extension it needs that is "
                "not installed, or a hook to mark @pytest.hookimpl(optionalhook=True)). Fix "
                f"or uninstall it, or run pytest with -p no:{PREFIX + entry_point.name} to "
                "disable it."
            )


def extension_entry_points() -> list[importlib_metadata.EntryPoint]:
    """The installed ``pytest_probability.extensions`` entry points, as
    ``importlib.metadata.entry_points(group=...)`` finds them (the first distribution of a
    name on the path wins), reading only the entry points of distributions that declare the
    group: the standard call parses every distribution's entry points, which costs a few
    milliseconds per 50 installed packages on every pytest start, extension or not."""
    found: list[importlib_metadata.EntryPoint] = []
    seen: set[str] = set()
    marker = f"[{ENTRY_POINT_GROUP}]"
    for dist in importlib_metadata.distributions():
        name = dist._normalized_name  # (the key the standard library dedupes by, PEP 503)
        if name in seen:
            continue  # shadowed by a distribution of the same name earlier on the path
        seen.add(name)
        text = dist.read_text("entry_points.txt")
        if text and marker in text:
            found.extend(ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP)
    return found


#: the plugin name the kernel registers under
KERNEL_NAME = "probability.kernel"
#: the collection module: while it is not imported, no item is a bench run
COLLECT_MODULE = "pytest_probability.collection.collector"

#: Names under ``probability.`` the kernel registers itself (besides the bundled extensions).
KERNEL_NAMES = frozenset({"kernel", "decided", "sigterm"})


def reserved(name: str) -> bool:
    """Whether a third-party extension may not be called ``name``: the kernel's names, a
    bundled extension's, or one under a bundled extension (``budget.session``)."""
    return name in KERNEL_NAMES or name.split(".", 1)[0] in dict(BUNDLED)


def undeclared_hooks(pluginmanager: pytest.PytestPluginManager, plugin: object) -> list[str]:
    """The ``pytest_prob_*`` hooks ``plugin`` implements that have no specification (and are
    not marked ``optionalhook``), sorted."""
    hooks = pluginmanager.hook
    callers = [getattr(hooks, name) for name in dir(hooks) if name.startswith("pytest_prob_")]
    return sorted(
        caller.name
        for caller in callers
        if not caller.has_spec()
        and any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls())
    )


def _described(entry_point: importlib_metadata.EntryPoint) -> str:
    dist = entry_point.dist.name if entry_point.dist else "an unknown distribution"
    return (
        f"pytest-probability extension {entry_point.name!r} (entry point "
        f"{entry_point.value!r} from {dist})"
    )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r}) while loading"
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt raised while loading"
    return f"{type(exc).__name__}: {exc}"
