"""The agents (stages 3–5): who they are, which run, how they are asked, what they may claim.

- ``agencies.py``: the 44 agents in their agencies, and the always-on set;
- ``registry.py`` / ``loader.py``: an agent's spec, and the strict loader of
  ``prompts/agents/`` (through the turn's ``Prompts``);
- ``selection.py``: which agents a wave runs (sensors, modulators, cooldowns, budget);
- ``context.py``: the text every agent of a turn reads (one shared KV prefix);
- ``runner.py``: one grammar-constrained agent call; ``labels.py``: label answers → claims;
- ``grounding.py``: keeps ungrounded or copied claims out of the council;
- ``stage.py``: ``WaveStage``, the agents in waves, the reducer and the deliberation.
"""
