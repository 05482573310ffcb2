"""Local models: the LLM port, the llama.cpp adapter, the scripted fake, the tier router.

Empty until the Local models issue lands.
"""
