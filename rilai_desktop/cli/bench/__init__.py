"""`rilai bench NAME`: ours beside the bare library doing the same work, in one run."""
