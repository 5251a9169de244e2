"""The plugin boundary: the API (graderctl.plugin.api) apart from the registry (graderctl.plugin.registry),
a registry tests can create fresh, and graderctl.plugin re-exporting both for third-party code."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import graderctl.plugin as plugin
from graderctl.errors import PluginError
from graderctl.models.calset import SampleInput
from graderctl.plugin import api, registry
from graderctl.plugin.registry import KindRegistry


class Echo(plugin.GraderKind):
    name = "registry_test_echo"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[plugin.Verdict]:
        return [plugin.Verdict.accept("echo") for _ in inputs]


class Other(Echo):
    """A different class with the same kind name."""


def test_graderctl_plugin_re_exports_the_api_and_the_registry() -> None:
    for name in api.__all__:
        assert getattr(plugin, name) is getattr(api, name), name
    for name in ("ENTRY_POINT_GROUP", "KindRegistry", "validate_kind", "register", "kinds", "get_kind"):
        assert getattr(plugin, name) is getattr(registry, name), name
    for name in ("broken_kinds", "kind_origin", "default_registry"):
        assert getattr(plugin, name) is getattr(registry, name), name
    assert plugin.ENTRY_POINT_GROUP == "graderctl.graders"


def test_a_fresh_registry_without_entry_points_is_empty_and_independent() -> None:
    fresh = KindRegistry(group=None)
    assert fresh.kinds() == {}
    fresh.register(Echo, origin="test")
    assert fresh.get_kind("registry_test_echo") is Echo
    assert fresh.kind_origin("registry_test_echo") == "test"
    assert fresh.broken_kinds() == {}
    # the default registry did not see it
    assert "registry_test_echo" not in plugin.kinds()
    with pytest.raises(PluginError, match="unknown grader kind 'registry_test_echo'"):
        plugin.get_kind("registry_test_echo")


def test_a_fresh_registry_rejects_duplicates_and_bad_kinds() -> None:
    fresh = KindRegistry(group=None)
    fresh.register(Echo)
    fresh.register(Echo)  # the same class again is fine
    with pytest.raises(PluginError, match="already registered"):
        fresh.register(Other)
    with pytest.raises(PluginError, match=r"must subclass graderctl\.plugin\.GraderKind"):
        fresh.register(int)  # type: ignore[arg-type]
    with pytest.raises(PluginError, match=r"unknown grader kind 'nope'; known kinds: registry_test_echo\."):
        fresh.get_kind("nope")


def test_the_default_registry_loads_the_built_in_kinds_from_entry_points() -> None:
    fresh = KindRegistry()
    built_in = {"source_existence", "claim_support", "coverage", "llm_judge", "command", "cascade"}
    assert built_in <= set(fresh.kinds())
    assert fresh.get_kind("coverage") is plugin.get_kind("coverage")
    assert fresh.kind_origin("coverage").startswith("graderctl ")


def test_using_makes_a_registry_the_default_for_a_while() -> None:
    fresh = KindRegistry(group=None)
    fresh.register(Echo)
    before = plugin.default_registry()
    with registry.using(fresh):
        assert plugin.default_registry() is fresh
        assert plugin.get_kind("registry_test_echo") is Echo
        assert plugin.kinds() == {"registry_test_echo": Echo}
        with pytest.raises(PluginError, match="known kinds: registry_test_echo"):
            plugin.get_kind("coverage")
    assert plugin.default_registry() is before
    assert "registry_test_echo" not in plugin.kinds()
    assert plugin.get_kind("coverage").name == "coverage"
