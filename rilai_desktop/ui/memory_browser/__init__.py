"""The memory browser (issue 20): a dock with everything Rilai remembers and the person's
controls over it. ``dock.py`` is the dock and its panel; ``entry_tab.py`` / ``entry_model.py``
the tables of entries; ``page_tab.py`` the markdown pages; ``dialogs.py`` the edit and
"forget everything" dialogs; ``snapshot.py`` what one read brings back."""
