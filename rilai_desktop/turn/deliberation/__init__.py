"""From claims to a decision: the reducer, the argument, the council (stages 4–6).

- ``claims.py``: claim text analysis (words, polarity, stance) shared by what follows;
- ``reducer.py``: the one place agent proposals become state (deterministic merging);
- ``graph.py`` / ``rounds.py``: the argument graph, the consensus, and the follow-up rounds;
- ``council.py`` with ``council_rules.py`` and ``council_cues.py``: the decision whether and
  how Rilai answers;
- ``influence.py``: the decision replayed without the agents (did they change anything?).
"""
