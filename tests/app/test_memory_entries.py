"""The memory browser's reads through the Engine facade (issue 20): every entry with where it
came from in words, the pages (categories, journal, knowledge bases), search across all."""

from __future__ import annotations

from rilai_desktop.app.engine import Engine


def test_a_fact_learned_in_a_turn_is_an_entry_with_its_conversation(engine: Engine) -> None:
    engine.send("My sister is called Ines.").result(timeout=60)
    entries = engine.memory.entries()
    facts = [e for e in entries if e.kind == "fact" and "Ines" in e.text]
    assert facts, entries
    (fact,) = facts
    assert fact.source == "conversation “My sister is called Ines.”, turn 1"
    assert fact.session_id == engine.session_id and fact.turn_ids == (1,)
    said = [e for e in entries if e.kind == "item" and e.category == "what you said"]
    assert [e.text for e in said] == ["My sister is called Ines."]
    assert said[0].source == fact.source
    assert not fact.paused and not fact.pinned and fact.last_used_at is None


def test_the_filter_and_search_find_entries_of_every_kind(engine: Engine) -> None:
    engine.send("My sister is called Ines.").result(timeout=60)
    told = engine.memory.remember("I like green tea in the morning.", "preferences")
    only_tea = engine.memory.entries("item", query="gre tea")  # prefixes, every word
    assert [e.entry_id for e in only_tea] == [told.item_id]
    assert only_tea[0].source == "you asked Rilai to remember it"
    assert engine.memory.entries("fact", query="ines")[0].text == "My sister is called Ines."
    assert engine.memory.entries("fact", query='100%_"') == []  # words, never syntax
    assert engine.memory.entries("item", query='NEAR( "') == []
    found = engine.memory.search_all("sister Ines")
    assert "Ines" in found[0].text  # the retrieval's best first, then the small tables
    assert any(e.kind == "fact" and "Ines" in e.text for e in found)
    assert engine.memory.search_all("   ") == []
    entry = engine.memory.entry("item", told.item_id)
    assert entry is not None and entry.text == told.content and entry.category == "preferences"
    assert engine.memory.entry("fact", "no-such-fact") is None


def test_pages_hold_the_category_files_the_journal_and_the_knowledge_bases(
    engine: Engine,
) -> None:
    engine.send("I just started learning the cello.").result(timeout=60)
    memory = engine.parts.memory
    assert memory is not None
    memory.create_category("hobbies", "What they do for fun")
    memory.remember("I play the cello on Sundays.", "hobbies")
    memory.consolidate_category("hobbies", force=True, use_model=False)
    memory.knowledge_bases.upsert_texts("kb_core", {"soup": "Leek and potato soup."})
    pages = engine.memory.pages()
    (hobbies,) = [p for p in pages if p.kind == "category" and p.name == "hobbies"]
    assert "cello" in hobbies.markdown
    assert hobbies.path is not None and hobbies.path.read_text(encoding="utf-8") == hobbies.markdown
    days = [p for p in pages if p.kind == "journal"]
    assert days and "turn: success" in days[0].markdown and days[0].path is not None
    (kb,) = [p for p in pages if p.kind == "knowledge_base"]
    assert kb.name == "kb_core" and "1 document." in kb.markdown and "Leek" in kb.markdown
