"""The memory tools return exactly seed 003's text formats (section 5)."""

from __future__ import annotations

import re

import pytest

from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.memory.tools import (
    MemoryTool,
    get_category,
    list_categories,
    memory_tools,
    recall,
    remember,
)
from rilai_desktop.memory.types import ItemDraft

CHAT = "User: I love hiking in the Alps.\nRilai: That sounds lovely!\nUser: I live in Berlin now."


@pytest.fixture
def filled(manager: MemoryManager) -> MemoryManager:
    res = manager.store_resource(CHAT, "conversation")
    manager.extract_and_store(res.resource_id, mode="rules")
    doc = manager.store_resource("Hiking boots size 42", "document")
    manager.store_drafts(doc.resource_id, [ItemDraft(content="Hiking boots are size 42")])
    return manager


def test_recall_format(filled: MemoryManager) -> None:
    result = filled.retrieve("hiking in the Alps", mode="rag", k=3)
    assert len(result.items) == 3
    text = recall(filled, "hiking in the Alps", k=3, mode="rag")
    kinds = {
        "I love hiking in the Alps.": ("conversation", "preferences"),
        "I live in Berlin now.": ("conversation", "biography"),
        "Hiking boots are size 42": ("document", "uncategorized"),
    }
    expected = "Found 3 relevant memories:\n\n" + "\n\n".join(
        f"{n}. [{score:.2f}] {item.content}\n"
        f"   Source: {kinds[item.content][0]} | Category: {kinds[item.content][1]}"
        for n, (item, score) in enumerate(
            zip(result.items, result.confidence_scores, strict=True), 1
        )
    )
    assert text == expected
    lines = text.split("\n")
    assert lines[0] == "Found 3 relevant memories:"
    assert lines[1] == "" and lines[4] == "" and lines[7] == ""
    assert re.fullmatch(r"1\. \[\d\.\d\d\] I love hiking in the Alps\.", lines[2])
    assert lines[3] == "   Source: conversation | Category: preferences"
    assert all(re.fullmatch(r"\d\. \[\d\.\d\d\] .+", lines[i]) for i in (2, 5, 8))
    assert all(re.fullmatch(r"   Source: \w+ \| Category: \w+", lines[i]) for i in (3, 6, 9))
    assert len(lines) == 10  # no trailing blank line


def test_recall_one_result_and_category(filled: MemoryManager) -> None:
    text = recall(filled, "where do I live", k=5, mode="rag", category="biography")
    assert text.startswith("Found 1 relevant memories:\n\n1. [")
    assert text.endswith("] I live in Berlin now.\n   Source: conversation | Category: biography")


def test_recall_scores_have_two_decimals(filled: MemoryManager) -> None:
    text = recall(filled, "boots", k=1, mode="rag")
    (score,) = re.findall(r"^1\. \[([^\]]+)\]", text, flags=re.M)
    result = filled.retrieve("boots", mode="rag", k=1)
    assert score == f"{result.confidence_scores[0]:.2f}"
    assert re.fullmatch(r"\d\.\d\d", score)


def test_recall_with_no_results(manager: MemoryManager) -> None:
    assert recall(manager, "pricing plans") == "No relevant memories found for: pricing plans"
    assert recall(manager, "x", mode="rag") == "No relevant memories found for: x"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"k": 0}, "Failed to recall: k must be from 1 to 20, got 0"),
        ({"k": 21}, "Failed to recall: k must be from 1 to 20, got 21"),
        ({"k": True}, "Failed to recall: k must be from 1 to 20, got True"),
        ({"mode": "fast"}, "Failed to recall: mode must be rag, llm or hybrid, got 'fast'"),
        ({"category": "hobbies"}, "Failed to recall: Category 'hobbies' not found"),
        ({"mode": "llm"}, "Failed to recall: LLM retrieval needs a model and none is configured"),
    ],
)
def test_recall_errors_are_text(
    filled: MemoryManager, kwargs: dict[str, object], expected: str
) -> None:
    assert recall(filled, "hiking", **kwargs) == expected  # type: ignore[arg-type]


def test_recall_empty_query_is_text(filled: MemoryManager) -> None:
    assert recall(filled, "").startswith("Failed to recall: the query is empty")


def test_recall_k_20_is_allowed(filled: MemoryManager) -> None:
    assert recall(filled, "hiking", k=20, mode="rag").startswith("Found 3 relevant memories:")


def test_remember_success_block(manager: MemoryManager) -> None:
    text = remember(manager, "Customer prefers email over phone", "lead_preferences", "high")
    item = manager.item_layer.get_by_category("lead_preferences")[0]
    assert text == (
        f"Remembered: {item.item_id}\n"
        "Category: lead_preferences\n"
        "Importance: high\n"
        "Content: Customer prefers email over phone..."
    )
    assert len(text.split("\n")) == 4
    assert re.fullmatch(r"Remembered: item_[0-9a-f-]{36}", text.split("\n")[0])


def test_remember_previews_the_first_100_characters(manager: MemoryManager) -> None:
    content = "The spare key " + "is under the blue pot by the door " * 5
    text = remember(manager, content)
    last = text.split("\n")[-1]
    assert last == f"Content: {content.strip()[:100]}..."
    assert "Category: notes" in text and "Importance: normal" in text


@pytest.mark.parametrize(
    ("content", "kwargs", "fragment"),
    [
        ("", {}, "content is empty"),
        ("   ", {}, "content is empty"),
        ("x" * 2001, {}, "at most 2,000 characters"),
        ("bin\x00ary", {}, "NUL"),
        ("A fine fact", {"importance": "urgent"}, "importance must be low, normal or high"),
        ("A fine fact", {"category": "Not Snake"}, "invalid category name"),
    ],
)
def test_remember_failure_text(
    manager: MemoryManager, content: str, kwargs: dict[str, str], fragment: str
) -> None:
    text = remember(manager, content, **kwargs)
    assert text.startswith("Failed to remember: ")
    assert fragment in text
    assert "\n" not in text
    assert manager.item_layer.count() == 0


def test_list_categories_format(manager: MemoryManager) -> None:
    assert list_categories(manager) == "Memory Categories (0):\n\nNo categories yet."
    manager.create_category("product_knowledge", "Information about products and pricing")
    manager.create_category("lead_preferences", "Captured preferences and requirements from leads")
    manager.remember("Customer prefers annual billing", category="lead_preferences")
    manager.remember("Pro plan costs 299 dollars a month", category="lead_preferences")
    manager.remember("Basic plan costs 99 dollars a month", category="product_knowledge")
    assert list_categories(manager) == (
        "Memory Categories (2):\n"
        "\n"
        "1. lead_preferences\n"
        "   Captured preferences and requirements from leads\n"
        "   Items: 2\n"
        "\n"
        "2. product_knowledge\n"
        "   Information about products and pricing\n"
        "   Items: 1"
    )


def test_get_category_content_and_not_found(manager: MemoryManager) -> None:
    manager.create_category("product_knowledge", "Information about products and pricing")
    manager.create_category("lead_preferences", "Captured preferences and requirements from leads")
    assert get_category(manager, "lead_preferences") == manager.get_category_content(
        "lead_preferences"
    )
    assert get_category(manager, "objections") == (
        "Category 'objections' not found.\n\n"
        "Available categories: lead_preferences, product_knowledge"
    )
    assert get_category(manager, "Bad Name!") == (
        "Category 'Bad Name!' not found.\n\n"
        "Available categories: lead_preferences, product_knowledge"
    )


def test_memory_tools_binding(filled: MemoryManager) -> None:
    tools = memory_tools(filled)
    assert list(tools) == ["recall", "remember", "list_categories", "get_category"]
    for name, tool in tools.items():
        assert isinstance(tool, MemoryTool) and tool.name == name
        assert tool.description and tool.description == tool.description.strip()
    assert tools["recall"].description.startswith("Search memory for relevant information")
    assert tools["remember"].description.startswith("Store an important fact")
    assert tools["list_categories"].description.startswith("List all available memory categories")
    assert tools["get_category"].description.startswith("Get the full aggregated content")
    assert tools["recall"].call("hiking", k=1, mode="rag") == recall(filled, "hiking", 1, "rag")
    assert tools["list_categories"].call() == list_categories(filled)
    assert tools["get_category"].call("biography") == filled.get_category_content("biography")
    assert tools["remember"].call("My bike is a green Brompton").startswith("Remembered: item_")
    assert "My bike is a green Brompton" in tools["recall"].call("Brompton bike", mode="rag")
