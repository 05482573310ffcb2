"""The reply (stages 6–7): the voice's prompt, the voice, the critics, the fallback.

- ``stage.py``: ``SpeakingStage``: council, voice, critics, regeneration, escalation,
  fallback; the reply shown always passes the safety critic;
- ``voice_prompt.py`` / ``voice.py`` / ``voice_guard.py``: the prompt, the rendering and
  cleaning of the reply, the decode-time guard; ``pronouns.py``: their words as notes;
- ``critics.py`` (+ ``critic_judge.py``, ``critic_patterns.py``, ``critic_copies.py``):
  seven critics over a reply; ``reply_checks.py`` / ``reply_identity.py``: the
  deterministic checks they share with ``rilai eval replies``;
- ``fallback.py``: the last-resort reply built from the decision and the sensors.
"""
